//! Per-language provider tests (filled in with the provider table).
