//! Fuzzes the reader of a VNN-LIB property (`mavis nn verify`): no input may panic, and every refusal of
//! a format with lines must say where.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mavis::parsers::Format;

mod common;

fuzz_target!(|data: &[u8]| {
    common::check(Format::Vnnlib, data);
});
