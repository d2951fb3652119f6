//! The unified_diff dialect (being written).

use crate::error::{Code, Error, Result};
use crate::plan::Plan;

/// Compiles the input into a plan.
pub fn parse(_input: &str) -> Result<Plan> {
    Err(Error::new(Code::PlanUnsupported, "the unified_diff dialect is not executable by this build yet"))
}
