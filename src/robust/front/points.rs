//! The points of a coordinate metric, all in one vector with a fixed
//! dimension: a 10^6-state automaton holds its points in one allocation
//! instead of one per state.

/// `len` points of `dim` coordinates each; point q is `coords[q * dim..(q + 1) * dim]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Points {
    dim: usize,
    // Kept apart from `coords` because zero-dimensional points take no room.
    len: usize,
    coords: Vec<f64>,
}

impl Points {
    /// `len` points of `dim` coordinates from their coordinates, point after point.
    ///
    /// # Panics
    /// If `coords` does not hold exactly `len * dim` numbers (a caller's bug).
    pub fn from_flat(dim: usize, len: usize, coords: Vec<f64>) -> Self {
        assert_eq!(coords.len(), dim * len, "points of the wrong size");
        Points { dim, len, coords }
    }

    /// The points given one by one.
    ///
    /// # Panics
    /// If they do not all have the same dimension (a caller's bug).
    pub fn from_rows(rows: &[Vec<f64>]) -> Self {
        let dim = rows.first().map_or(0, Vec::len);
        assert!(
            rows.iter().all(|r| r.len() == dim),
            "points of different dimensions"
        );
        Points::from_flat(dim, rows.len(), rows.concat())
    }

    /// The number of coordinates of each point.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The coordinates of point q.
    pub fn get(&self, q: usize) -> &[f64] {
        &self.coords[q * self.dim..(q + 1) * self.dim]
    }

    /// The same points with every coordinate multiplied by `c`.
    pub fn scaled(&self, c: f64) -> Points {
        Points {
            dim: self.dim,
            len: self.len,
            coords: self.coords.iter().map(|x| x * c).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_flat_agree() {
        let p = Points::from_rows(&[vec![1.0, 2.0], vec![3.0, -4.0], vec![0.5, 0.0]]);
        assert_eq!(p.len(), 3);
        assert_eq!(p.dim(), 2);
        assert_eq!(p.get(1), &[3.0, -4.0]);
        assert_eq!(p.get(2), &[0.5, 0.0]);
        assert_eq!(
            p,
            Points::from_flat(2, 3, vec![1.0, 2.0, 3.0, -4.0, 0.5, 0.0])
        );
        assert_eq!(p.scaled(2.0).get(1), &[6.0, -8.0]);
    }

    #[test]
    fn zero_dimensional_points_are_counted() {
        let p = Points::from_rows(&[vec![], vec![]]);
        assert_eq!((p.len(), p.dim()), (2, 0));
        assert!(p.get(1).is_empty());
        assert!(Points::from_rows(&[]).is_empty());
    }

    #[test]
    #[should_panic(expected = "different dimensions")]
    fn rows_must_share_a_dimension() {
        Points::from_rows(&[vec![1.0], vec![1.0, 2.0]]);
    }
}
