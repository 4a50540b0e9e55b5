//! Nothing here: the tests in `tests/` are this crate's point (edition 2024).
