//! The front end of NIS: the `.nis` text ([`syntax`]) checked into the
//! typed [`model::Model`] ([`build`], [`rules`], names by [`scope`]), and
//! bICTL sentences ([`formula`]) with their core form ([`core`]) that every
//! decider reads, and strategic (ATL) sentences over named agents ([`strategic`]).

pub mod build;
pub mod core;
pub mod formula;
pub mod model;
pub mod rules;
pub mod scope;
pub mod specs_file;
pub mod strategic;
pub mod syntax;
