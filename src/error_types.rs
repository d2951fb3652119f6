//! identedit's error types (`error.type`, what an agent following the seed's recovery table
//! branches on) and the one our codes (`error.code`, finer) report under.

use crate::error::Code;

/// The error types of identedit's contract (`error.type`), which agents branch on; our finer
/// codes stay in `error.code`.
pub const ERROR_TYPES: &[&str] = &[
    "invalid_request",
    "precondition_failed",
    "target_missing",
    "ambiguous_target",
    "parse_failure",
    "no_provider",
    "io_error",
    "invalid_selector",
    "resource_busy",
    "path_changed",
    "serialization_error",
    "rollback_failed",
    "internal_error",
];

impl Code {
    /// The identedit error type this code reports as `error.type` (unless the failure names a
    /// more precise one, see [`crate::error::Error::typed`]).
    pub fn error_type(self) -> &'static str {
        use Code::*;
        match self {
            Usage | PlanMalformed | PlanUnsupported | PathRefused | EditsOverlap | TargetExists
            | InvalidRequest | ChangesetTampered | NeedsChangeset | ConfigUnsupported
            | ApiChangeRefused | NotARepository | BareRepository | NothingToUndo | HookRefused
            | HookConflict => "invalid_request",
            EvidenceChanged | PreconditionFailed | Drifted | IndexMismatch | StaleRead => {
                "precondition_failed"
            }
            TargetMissing | AnchorMissing | ReceiptNotFound => "target_missing",
            AmbiguousTarget | AnchorAmbiguous => "ambiguous_target",
            ParseFailure => "parse_failure",
            NoProvider => "no_provider",
            InputNotFound | IoError | FileUnsupported | ApplyFailed | ReceiptNotRecorded => {
                "io_error"
            }
            ResourceBusy => "resource_busy",
            Internal => "internal_error",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ERROR_TYPES;
    use crate::error::CODES;

    #[test]
    fn every_code_reports_a_listed_type() {
        for entry in CODES {
            assert!(
                ERROR_TYPES.contains(&entry.code.error_type()),
                "{}",
                entry.name
            );
        }
    }
}
