//! Input dialects. Each one compiles into the same [`crate::plan::Plan`]; none applies anything.

pub mod patch_request;
pub mod plan_json;

use crate::error::Result;
use crate::plan::Plan;

/// Compiles raw input bytes into a plan. Only `source_edit_plan` exists in this build.
pub fn compile(input: &[u8]) -> Result<Plan> {
    plan_json::parse(input)
}
