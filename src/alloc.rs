//! Memory for parsing. Tree-sitter makes many small allocations while it parses; with glibc's
//! allocator a 5,000-line file costs about 1,450 first-touch page faults in a fresh process,
//! a third of the command's time. The binary allocates through mimalloc (about 230 faults)
//! and points tree-sitter's C core at the same allocator. (Asking mimalloc for large OS pages
//! as well was measured slower here: zeroing 2 MiB pages costs more than it saves.)

use libmimalloc_sys::{mi_calloc, mi_free, mi_malloc, mi_realloc};

/// Routes tree-sitter's allocations through mimalloc. Call once, before any parser exists.
#[allow(unsafe_code)]
pub fn use_mimalloc_for_parsers() {
    let allocator = tree_sitter::Allocator {
        malloc: mi_malloc,
        calloc: mi_calloc,
        realloc: mi_realloc,
        free: mi_free,
    };
    // SAFETY: this runs at start-up before any tree-sitter object is created, so everything the
    // C core allocates from here on is freed by the same allocator.
    unsafe {
        tree_sitter::set_allocator(Some(allocator));
    }
}
