//! The executable bit as part of a file's change: a plan's `Mode` operation, and the mode a
//! restore puts back. A mode change is a change even when the bytes stay.

use std::fs::Permissions;
use std::os::unix::fs::PermissionsExt;

use crate::change::{Action, FileChange, PostImage};
use crate::plan::{OpKind, Plan};

/// Whether permissions carry an executable bit (git mode 100755).
pub fn is_executable(permissions: &Permissions) -> bool {
    permissions.mode() & 0o111 != 0
}

/// `base` with the executable bits set where it is readable, or cleared.
fn with_bit(base: Option<&Permissions>, executable: bool) -> Permissions {
    let mode = base.map_or(0o644, Permissions::mode);
    Permissions::from_mode(match executable {
        true => mode | ((mode & 0o444) >> 2),
        false => mode & !0o111,
    })
}

/// Gives `change` the executable bit `executable` when its file does not have it already.
pub fn set(change: &mut FileChange, executable: bool) {
    let before = change.before.as_ref().map(|b| &b.permissions);
    if before.is_some_and(|p| is_executable(p) == executable) {
        return;
    }
    if before.is_none() && !executable {
        return;
    }
    change.new_permissions = Some(with_bit(before, executable));
    if change.action == Action::Unchanged {
        change.action = Action::Modified;
        change.after = change
            .before
            .as_ref()
            .map(|b| PostImage::Whole(b.bytes.shared()));
        change.after_digest = change.digest_before();
    }
}

/// Applies the group's `Mode` operation, if it has one, to its prepared change.
pub fn apply(plan: &Plan, ops: &[usize], mut change: FileChange) -> FileChange {
    let wanted = ops.iter().find_map(|&i| match plan.ops[i].kind {
        OpKind::Mode { executable } => Some(executable),
        _ => None,
    });
    if let Some(executable) = wanted
        && change.action != Action::Deleted
    {
        set(&mut change, executable);
    }
    change
}

/// The operations of a group other than its mode change (a created file may take one).
pub fn content_ops(plan: &Plan, ops: &[usize]) -> Vec<usize> {
    let mode = |i: &usize| matches!(plan.ops[*i].kind, OpKind::Mode { .. });
    ops.iter().copied().filter(|i| !mode(i)).collect()
}
