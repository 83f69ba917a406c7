//! Decoding ONNX `TensorProto` constants (initializers and `Constant` nodes)
//! into f64 arrays.

use super::load_error::LoadProblem;
use onnx_protobuf::TensorProto;

/// A constant tensor, values in row-major order as f64 (integers converted).
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub dims: Vec<usize>,
    pub data: Vec<f64>,
}

// ONNX TensorProto.DataType codes used here.
const FLOAT: i32 = 1;
const INT32: i32 = 6;
const INT64: i32 = 7;
const DOUBLE: i32 = 11;
const EXTERNAL: i32 = 1;

impl Tensor {
    pub fn scalar(v: f64) -> Self {
        Tensor {
            dims: vec![],
            data: vec![v],
        }
    }

    pub fn vector(values: Vec<f64>) -> Self {
        Tensor {
            dims: vec![values.len()],
            data: values,
        }
    }

    /// Decodes `float_data`, `double_data`, `int32_data`, `int64_data` or
    /// little-endian `raw_data`; checks the value count against the shape and
    /// that every float is finite.
    pub fn from_proto(t: &TensorProto, name: &str) -> Result<Self, LoadProblem> {
        let problem = |detail: String| LoadProblem::Tensor {
            name: name.to_string(),
            detail,
        };
        if t.data_location.value() == EXTERNAL || !t.external_data.is_empty() {
            return Err(problem("external data files are not supported".into()));
        }
        let mut dims = Vec::with_capacity(t.dims.len());
        let mut count: usize = 1;
        for &d in &t.dims {
            let d = usize::try_from(d).map_err(|_| problem(format!("negative dimension {d}")))?;
            count = count
                .checked_mul(d)
                .filter(|&c| c <= 1 << 28)
                .ok_or_else(|| problem("too many elements".into()))?;
            dims.push(d);
        }
        let raw = &t.raw_data;
        let data: Vec<f64> = match t.data_type {
            FLOAT if !raw.is_empty() => decode_raw(raw, 4, count, &problem)?
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
                .collect(),
            FLOAT => t.float_data.iter().map(|&v| v as f64).collect(),
            DOUBLE if !raw.is_empty() => decode_raw(raw, 8, count, &problem)?
                .map(|c| f64::from_le_bytes(c.try_into().expect("chunk of 8")))
                .collect(),
            DOUBLE => t.double_data.clone(),
            INT64 if !raw.is_empty() => decode_raw(raw, 8, count, &problem)?
                .map(|c| i64::from_le_bytes(c.try_into().expect("chunk of 8")) as f64)
                .collect(),
            INT64 => t.int64_data.iter().map(|&v| v as f64).collect(),
            INT32 if !raw.is_empty() => decode_raw(raw, 4, count, &problem)?
                .map(|c| i32::from_le_bytes(c.try_into().expect("chunk of 4")) as f64)
                .collect(),
            INT32 => t.int32_data.iter().map(|&v| v as f64).collect(),
            other => {
                return Err(problem(format!(
                    "element type {} is not supported (float, double, int32, int64 are)",
                    type_name(other)
                )))
            }
        };
        if data.len() != count {
            return Err(problem(format!(
                "has {} values but its shape {:?} needs {count}",
                data.len(),
                dims
            )));
        }
        if !data.iter().all(|v| v.is_finite()) {
            return Err(LoadProblem::NotFinite {
                name: name.to_string(),
            });
        }
        Ok(Tensor { dims, data })
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }
}

fn decode_raw<'a>(
    raw: &'a [u8],
    width: usize,
    count: usize,
    problem: &dyn Fn(String) -> LoadProblem,
) -> Result<std::slice::ChunksExact<'a, u8>, LoadProblem> {
    if raw.len() != width * count {
        return Err(problem(format!(
            "raw data has {} bytes but {count} values of {width} bytes are needed",
            raw.len()
        )));
    }
    Ok(raw.chunks_exact(width))
}

fn type_name(code: i32) -> String {
    let name = match code {
        0 => "undefined",
        2 => "uint8",
        3 => "int8",
        4 => "uint16",
        5 => "int16",
        8 => "string",
        9 => "bool",
        10 => "float16",
        12 => "uint32",
        13 => "uint64",
        14 => "complex64",
        15 => "complex128",
        16 => "bfloat16",
        _ => return format!("code {code}"),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proto(dims: &[i64], data_type: i32) -> TensorProto {
        TensorProto {
            dims: dims.to_vec(),
            data_type,
            ..Default::default()
        }
    }

    #[test]
    fn decodes_every_storage() {
        let mut t = proto(&[2], FLOAT);
        t.float_data = vec![1.5, -2.0];
        assert_eq!(Tensor::from_proto(&t, "a").unwrap().data, vec![1.5, -2.0]);
        let mut t = proto(&[1, 2], FLOAT);
        t.raw_data = [0.25f32.to_le_bytes(), 3.0f32.to_le_bytes()].concat();
        assert_eq!(
            Tensor::from_proto(&t, "a").unwrap(),
            Tensor {
                dims: vec![1, 2],
                data: vec![0.25, 3.0]
            }
        );
        let mut t = proto(&[2], DOUBLE);
        t.raw_data = [0.1f64.to_le_bytes(), (-7.0f64).to_le_bytes()].concat();
        assert_eq!(Tensor::from_proto(&t, "a").unwrap().data, vec![0.1, -7.0]);
        let mut t = proto(&[2], DOUBLE);
        t.double_data = vec![0.1, 0.2];
        assert_eq!(Tensor::from_proto(&t, "a").unwrap().data, vec![0.1, 0.2]);
        let mut t = proto(&[2], INT64);
        t.raw_data = [(-1i64).to_le_bytes(), 4i64.to_le_bytes()].concat();
        assert_eq!(Tensor::from_proto(&t, "a").unwrap().data, vec![-1.0, 4.0]);
        let mut t = proto(&[], FLOAT);
        t.float_data = vec![2.0];
        assert_eq!(Tensor::from_proto(&t, "a").unwrap(), Tensor::scalar(2.0));
    }

    #[test]
    fn refuses_bad_tensors() {
        let mut t = proto(&[3], FLOAT);
        t.float_data = vec![1.0, 2.0];
        let e = Tensor::from_proto(&t, "W").unwrap_err().to_string();
        assert_eq!(e, "tensor 'W': has 2 values but its shape [3] needs 3");
        let mut t = proto(&[2], FLOAT);
        t.raw_data = vec![0; 7];
        assert!(Tensor::from_proto(&t, "W")
            .unwrap_err()
            .to_string()
            .contains("raw data has 7 bytes"));
        let mut t = proto(&[2], FLOAT);
        t.float_data = vec![1.0, f32::NAN];
        assert_eq!(
            Tensor::from_proto(&t, "W").unwrap_err(),
            LoadProblem::NotFinite { name: "W".into() }
        );
        let mut t = proto(&[1], 10);
        t.raw_data = vec![0, 0];
        assert!(Tensor::from_proto(&t, "W")
            .unwrap_err()
            .to_string()
            .contains("float16"));
        let t = proto(&[-1], FLOAT);
        assert!(Tensor::from_proto(&t, "W")
            .unwrap_err()
            .to_string()
            .contains("negative"));
    }
}
