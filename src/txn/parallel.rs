//! Per-file work of one command shared out over the machine's cores: preparing a plan of
//! many files is mostly parsing for the gate, and each file is independent.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// `work` on every group, results in the groups' order. Many files are shared out over the
/// machine's cores, one file at a time (most of preparing is parsing for the gate); a few
/// stay on the calling thread.
pub fn each<G: Sync, T: Send>(groups: &[G], work: impl Fn(&G) -> T + Sync) -> Vec<T> {
    share(groups, work, |made| (made, None))
}

/// [`each`], where every result made on a worker thread is copied, as it arrives, by
/// `settle` on the calling thread, while the workers go on (a result made on the calling
/// thread is kept as it is). glibc gives each thread its own arena: results that outlive the
/// workers would otherwise stay scattered among the pages of their parses, pinning them (see
/// `FileChange::relocated`). The originals go back to the workers, which drop them before
/// their next file and reuse the memory. Dropped by the calling thread, it would pass through
/// that thread's cache of free chunks (glibc's tcache, shared by every arena), and the next
/// copies would be made in it, back in the workers' arenas.
pub fn each_settled<G: Sync, T: Send>(
    groups: &[G],
    work: impl Fn(&G) -> T + Sync,
    mut settle: impl FnMut(&mut T) -> T,
) -> Vec<T> {
    share(groups, work, |mut made| (settle(&mut made), Some(made)))
}

/// What the calling thread keeps of a worker's result, and what it gives back to the workers
/// to drop.
type Settled<T> = (T, Option<T>);

/// [`each`], with every result made on a worker thread passed through `settle`.
fn share<G: Sync, T: Send>(
    groups: &[G],
    work: impl Fn(&G) -> T + Sync,
    settle: impl FnMut(T) -> Settled<T>,
) -> Vec<T> {
    const PER_THREAD: usize = 8;
    // Asking for the cores reads the cgroup's files: not on the path of a few files.
    if groups.len() < 2 * PER_THREAD {
        return groups.iter().map(work).collect();
    }
    let threads = groups.len().div_ceil(PER_THREAD).min(cores());
    if threads <= 1 {
        return groups.iter().map(work).collect();
    }
    crate::alloc::return_freed_parser_pages_at_once();
    crate::alloc::trim_arenas_eagerly();
    let mut done = shared_out(groups, &work, threads, settle);
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

/// `work` on every group over `threads` workers, each result settled on the calling thread;
/// each worker first drops what was given back since it last looked.
fn shared_out<G: Sync, T: Send>(
    groups: &[G],
    work: &(impl Fn(&G) -> T + Sync),
    threads: usize,
    mut settle: impl FnMut(T) -> Settled<T>,
) -> Vec<(usize, T)> {
    let next = AtomicUsize::new(0);
    let given_back: Mutex<Vec<T>> = Mutex::new(Vec::new());
    let (sender, results) = std::sync::mpsc::channel();
    let done = std::thread::scope(|scope| {
        let pull = |sender: std::sync::mpsc::Sender<(usize, T)>| {
            let (next, given_back) = (&next, &given_back);
            move || loop {
                drop(std::mem::take(&mut *lock(given_back)));
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(g) = groups.get(i) else {
                    crate::alloc::release_thread_parser_memory();
                    return;
                };
                if sender.send((i, work(g))).is_err() {
                    return;
                }
            }
        };
        let handles: Vec<_> = (0..threads)
            .map(|_| scope.spawn(pull(sender.clone())))
            .collect();
        drop(sender);
        let done: Vec<(usize, T)> = (results.iter())
            .map(|(i, made)| {
                let (kept, back) = settle(made);
                lock(&given_back).extend(back);
                (i, kept)
            })
            .collect();
        for handle in handles {
            if let Err(panic) = handle.join() {
                std::panic::resume_unwind(panic);
            }
        }
        done
    });
    // What the workers did not see before they ended.
    let left = given_back
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    if !left.is_empty() {
        crate::alloc::drop_elsewhere(left);
    }
    done
}

/// The list of results given back; a worker's panic does not spoil it.
fn lock<T>(given_back: &Mutex<Vec<T>>) -> std::sync::MutexGuard<'_, Vec<T>> {
    given_back.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The machine's cores (as the process may use them), asked once: asking reads the cgroup's
/// files.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    use super::each;

    #[test]
    fn results_come_back_in_the_groups_order() {
        for n in [0, 3, 15, 16, 200] {
            let groups: Vec<usize> = (0..n).collect();
            let squares = each(&groups, |g| g * g);
            assert_eq!(squares, groups.iter().map(|g| g * g).collect::<Vec<_>>());
        }
    }

    #[test]
    #[should_panic(expected = "group 100")]
    fn a_workers_panic_reaches_the_caller() {
        let groups: Vec<usize> = (0..200).collect();
        each(&groups, |&g| assert!(g != 100, "group {g}"));
    }

    #[test]
    fn every_result_of_a_worker_is_settled_once_on_the_calling_thread() {
        let caller = std::thread::current().id();
        let groups: Vec<usize> = (0..200).collect();
        let mut settled = 0;
        let out = super::each_settled(
            &groups,
            |&g| (g, std::thread::current().id()),
            |&mut (g, made_by)| {
                assert_eq!(std::thread::current().id(), caller);
                settled += 1;
                (g, made_by)
            },
        );
        assert_eq!(out.iter().map(|(g, _)| *g).collect::<Vec<_>>(), groups);
        let by_workers = out.iter().filter(|(_, made_by)| *made_by != caller).count();
        assert_eq!(settled, by_workers);
        if super::cores() > 1 {
            assert_eq!(by_workers, groups.len(), "the calling thread only settles");
        }
    }

    /// A result that counts its drops, and those made by the calling thread.
    struct Counted<'a> {
        drops: &'a std::sync::atomic::AtomicUsize,
        by_caller: &'a std::sync::atomic::AtomicUsize,
        caller: std::thread::ThreadId,
    }

    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            use std::sync::atomic::Ordering::Relaxed;
            self.drops.fetch_add(1, Relaxed);
            if std::thread::current().id() == self.caller {
                self.by_caller.fetch_add(1, Relaxed);
            }
        }
    }

    #[test]
    fn the_originals_of_settled_results_are_dropped_once_and_not_by_the_calling_thread() {
        use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
        let (drops, by_caller) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let caller = std::thread::current().id();
        let groups: Vec<usize> = (0..200).collect();
        let made = |_: &usize| Counted {
            drops: &drops,
            by_caller: &by_caller,
            caller,
        };
        let copies = super::each_settled(&groups, made, |original| Counted { ..*original });
        assert_eq!(copies.len(), groups.len());
        if super::cores() > 1 {
            assert_eq!(drops.load(Relaxed), groups.len(), "every original, once");
            assert_eq!(by_caller.load(Relaxed), 0);
        }
        let originals = drops.load(Relaxed);
        drop(copies);
        assert_eq!(drops.load(Relaxed), originals + groups.len());
    }
}
