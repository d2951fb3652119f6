//! The blocks dialect (being written).

use crate::error::{Code, Error, Result};
use crate::plan::Plan;

/// Compiles the input into a plan.
pub fn parse(_input: &str) -> Result<Plan> {
    Err(Error::new(Code::PlanUnsupported, "the blocks dialect is not executable by this build yet"))
}
