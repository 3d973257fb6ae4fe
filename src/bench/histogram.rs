//! The histogram codec of run files: HdrHistogram's V2 format with deflate,
//! as base64 text, so a run file keeps every wait and work distribution.

use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};

/// Serializes a histogram as base64 of the V2 deflate format.
pub fn serialize(h: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new()
        .serialize(h, &mut bytes)
        .expect("in-memory serialization cannot fail");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Reads a histogram written by [`serialize`].
pub fn deserialize(text: &str) -> std::result::Result<Histogram<u64>, String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|e| e.to_string())?;
    hdrhistogram::serialization::Deserializer::new()
        .deserialize(&mut std::io::Cursor::new(bytes))
        .map_err(|e| format!("{e:?}"))
}
