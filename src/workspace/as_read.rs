//! Files as a caller read them earlier, for one transaction's preflight: an MCP session hands
//! over the bytes its agent read, so the engine proves the plan on the file the agent saw and,
//! when the file changed since, rebases it under the locks exactly as when another edit lands
//! between the preflight and the locks (`txn::rebase`). Set per thread; the engine takes the
//! bytes for its first preparation only, and every later read is of the file as it is.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

thread_local! {
    /// Handed over, not yet taken by a transaction.
    static PENDING: RefCell<HashMap<PathBuf, Arc<Vec<u8>>>> = RefCell::new(HashMap::new());
    /// Taken by the transaction preparing now.
    static ACTIVE: RefCell<HashMap<PathBuf, Arc<Vec<u8>>>> = RefCell::new(HashMap::new());
}

/// Hands over the bytes each file (by absolute path) was read with, replacing any handed over
/// before; an empty map hands back nothing.
pub fn hand_over(files: HashMap<PathBuf, Arc<Vec<u8>>>) {
    PENDING.with(|p| *p.borrow_mut() = files);
}

/// Runs `prepare` with the handed-over bytes standing for the files' reads, then drops them.
pub fn preflight<T>(prepare: impl FnOnce() -> T) -> T {
    let files = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
    ACTIVE.with(|a| *a.borrow_mut() = files);
    let _clear = Clear;
    prepare()
}

/// Drops the taken bytes when the preflight ends, however it ends.
struct Clear;

impl Drop for Clear {
    fn drop(&mut self) {
        ACTIVE.with(|a| a.borrow_mut().clear());
    }
}

/// The bytes `path` was read with earlier, while a preflight takes them.
pub fn earlier(path: &Path) -> Option<Arc<Vec<u8>>> {
    ACTIVE.with(|a| a.borrow().get(path).cloned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_stand_for_one_preflight_only() {
        let path = PathBuf::from("/x/a.txt");
        hand_over(HashMap::from([(path.clone(), Arc::new(b"old".to_vec()))]));
        assert_eq!(earlier(&path), None, "not before the preflight");
        let seen = preflight(|| earlier(&path));
        assert_eq!(seen.as_deref().map(Vec::as_slice), Some(&b"old"[..]));
        assert_eq!(earlier(&path), None, "not after it");
        assert_eq!(preflight(|| earlier(&path)), None, "taken once");
    }
}
