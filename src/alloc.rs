//! Memory for parsing. Tree-sitter makes many small allocations while it parses; with glibc's
//! allocator a 5,000-line file costs about 1,450 first-touch page faults in a fresh process,
//! a third of the command's time. Tree-sitter's C core allocates through mimalloc instead
//! (about 230 faults). The rest of the program keeps the system allocator: as the global
//! allocator mimalloc added ~1.3 ms and ~7 MiB of resident memory to every command, parsing or
//! not. (Large OS pages were tried too, and measured slower: zeroing 2 MiB pages costs more.
//! For the same reason mimalloc is told not to ask for transparent huge pages: its first
//! arena would otherwise be backed by a 2 MiB page zeroed on first touch, 1.3 ms of a
//! one-edit command and 2 MiB of its resident memory.)

use libmimalloc_sys::{mi_calloc, mi_free, mi_malloc, mi_option_set, mi_option_t, mi_realloc};

/// mimalloc's `mi_option_allow_thp` (v3 header: madvise its arenas for huge pages, default on).
const MI_OPTION_ALLOW_THP: mi_option_t = 43;

/// mimalloc's `mi_option_destroy_on_exit` (v3 header). Above 1 its exit handler returns at
/// once: by default it collects the heap by force, decommitting the pages it used (two
/// `madvise(MADV_DONTNEED)` calls of 2 and 3 MiB after one parse, 0.4 ms of a one-edit
/// command) just before the kernel takes the whole address space back anyway.
const MI_OPTION_DESTROY_ON_EXIT: mi_option_t = 22;

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
        mi_option_set(MI_OPTION_ALLOW_THP, 0);
        mi_option_set(MI_OPTION_DESTROY_ON_EXIT, 2);
        tree_sitter::set_allocator(Some(allocator));
    }
}

/// Keeps glibc from mapping (and unmapping) fresh pages for every allocation between 128 KiB
/// and 1 MiB. Each zlib stream a receipt compresses allocates about 370 KiB of state; glibc
/// served each from a new `mmap`, so every object written paid the page faults of zeroing it
/// again. Served from the heap, and the heap not trimmed below 1 MiB, the second stream reuses
/// the first one's pages.
#[allow(unsafe_code)]
pub fn keep_medium_allocations_on_the_heap() {
    // SAFETY: mallopt only changes glibc's thresholds; it is called before any other thread
    // exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 20);
    }
}

/// From this size on, a file's bytes are held in memory backed by transparent huge pages.
const HUGE_FROM: usize = 4 << 20;

/// An empty buffer with room for `capacity` bytes of file data. A large one asks the kernel
/// for transparent huge pages (`madvise`; a no-op where they are off): filling 9 MB of fresh
/// 4 KiB pages costs about 2,200 page faults, 4 to 5 ms, against a handful of 2 MiB faults.
pub fn buffer(capacity: usize) -> Vec<u8> {
    let out: Vec<u8> = Vec::with_capacity(capacity);
    if capacity >= HUGE_FROM {
        advise_huge(out.as_ptr() as usize, capacity);
    }
    out
}

/// Marks the whole pages inside `start..start + len` for huge pages.
#[allow(unsafe_code)]
fn advise_huge(start: usize, len: usize) {
    const PAGE: usize = 4096;
    let first = start.next_multiple_of(PAGE);
    let end = (start + len) & !(PAGE - 1);
    if end > first {
        // SAFETY: madvise only changes how the kernel backs pages this buffer owns (its
        // allocation covers first..end); it never reads, writes or unmaps them.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

/// mimalloc's `mi_option_arena_eager_commit` (v3 header: commit a new arena up front when the
/// system overcommits, default 2 = yes).
const MI_OPTION_ARENA_EAGER_COMMIT: mi_option_t = 4;

/// mimalloc's `mi_option_purge_delay` (v3 header: milliseconds before freed pages are
/// purged, default 1,000).
const MI_OPTION_PURGE_DELAY: mi_option_t = 15;

/// Has mimalloc give the pages parsers free back to the system at once, for a command that
/// parses many files on worker threads. By default mimalloc keeps them resident: it purges
/// freed pages only after a second, and in an arena committed up front a purge only marks
/// them free (`MADV_FREE`), which leaves them counted in the process's memory. On W4 (1,000
/// PHP files) the parsers' live memory stayed under 5.4 MB, yet mimalloc's arena grew to
/// 20 MiB resident during the prepare and held 11 MiB after it; with the arena committed on
/// demand and freed pages purged at once it stays under 1 MiB, for no measurable CPU
/// (W2 126.9 → 128.3 ms, W4 2,015 → 1,958 ms, alternating runs). Call before the worker
/// threads start: an arena is committed as the option says when it is reserved, on the first
/// parse. A one-edit command never calls it, and keeps its pages for the exit.
#[allow(unsafe_code)]
pub fn return_freed_parser_pages_at_once() {
    // SAFETY: mi_option_set only stores an option; mimalloc reads options atomically.
    unsafe {
        mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0);
        mi_option_set(MI_OPTION_PURGE_DELAY, 0);
    }
}

/// Has glibc give back the free memory at the top of an arena from 128 KiB on, not 1 MiB
/// ([`keep_medium_allocations_on_the_heap`]), for a command that prepares many files on
/// worker threads. A worker's arena otherwise keeps up to a megabyte of its parses' freed
/// memory resident for the rest of the command (`malloc_trim` does not shrink the top of a
/// thread's arena). Call before the worker threads start.
#[allow(unsafe_code)]
pub fn trim_arenas_eagerly() {
    // SAFETY: mallopt only changes one of glibc's thresholds, under the allocator's own lock.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 128 << 10);
    }
}

/// Gives the memory a worker thread's parses freed back to the system before the thread ends.
/// mimalloc keeps freed pages for reuse by the thread that freed them; once that thread is
/// gone, a many-file plan's parses would otherwise keep megabytes resident for the rest of the
/// command (on W4, 1,000 PHP files, 11 MiB of its peak). (One glibc arena for all threads,
/// `M_ARENA_MAX=1`, was tried too: W4's peak 55.5 → 49.4 MiB, but W2 and W4 4-11 % slower in
/// alternating runs, the workers waiting on each other for it.)
#[allow(unsafe_code)]
pub fn release_thread_parser_memory() {
    // SAFETY: `mi_collect` has no preconditions: it only returns pages that hold no live
    // allocation.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

/// Returns the whole free pages of every glibc arena to the system (`malloc_trim`). A plan
/// prepared on worker threads leaves its per-file data in the workers' arenas, where the
/// main thread cannot reuse it once freed: without this, what the main thread allocates
/// next (the receipt, the report) adds to the peak instead of reusing those pages.
#[allow(unsafe_code)]
pub fn return_free_pages() {
    // SAFETY: malloc_trim only releases pages that hold no allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Drops `value` on a short-lived thread of its own, and waits for it. Memory a worker thread
/// allocated, freed by the calling thread, would pass through the calling thread's cache of
/// free chunks (glibc's tcache, shared by all arenas), and what the calling thread allocates
/// next would be served from it: its lasting data would land back in the worker's arena,
/// pinning pages there. Freed elsewhere, the chunks go straight back to their arena.
pub fn drop_elsewhere<T: Send>(value: T) {
    std::thread::scope(|scope| {
        scope.spawn(move || drop(value));
    });
}
