//! Named blocks of the state vector and of the Jacobian.
//!
//! A circuit's table names its states and state blocks
//! ([`circuit!`](crate::circuit) generates a `state` module: a scalar state
//! is an index, a block of a [`StateGroup`] is a [`Block`]). Elements fill
//! their own fixed-size vectors and matrices; the circuit copies them into
//! the blocks by name, without index arithmetic:
//!
//! ```ignore
//! state::drive.write(&mut dx, &drive.rates);
//! jacobian.block(state::drive, state::drive).copy_from(&drive.jac);
//! jacobian.block(state::carriage, state::drive).copy_from(&coupling);
//! ```

use nalgebra::{Const, Dyn, SMatrix, SVector, U1, ViewStorageMut};

/// A group of states an element owns (declared with
/// [`states!`](crate::states)): their number, names and nominal magnitudes.
pub trait StateGroup {
    /// Number of states.
    const LEN: usize;
    /// The states' names, in order.
    const NAMES: &'static [&'static str];
    /// Nominal magnitude of each state (SI unit).
    const NOMINAL: &'static [f64];
    /// The states as a part declares them ([`crate::compose::Part::states`]).
    const SPECS: &'static [crate::compose::StateSpec];
}

/// A contiguous block of `LEN` states starting at `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block<const LEN: usize> {
    start: usize,
}

impl<const LEN: usize> Block<LEN> {
    /// The block of `LEN` states from `start` on.
    pub const fn at(start: usize) -> Self {
        Block { start }
    }

    /// Index of the block's first state.
    pub const fn start(self) -> usize {
        self.start
    }

    /// Index one past the block's last state.
    pub const fn end(self) -> usize {
        self.start + LEN
    }

    /// The index in the whole state vector of the block's state `i`
    /// (e.g. `state::carriage.index(CarriageStates::v)`).
    pub const fn index(self, i: usize) -> usize {
        assert!(i < LEN, "state index outside the block");
        self.start + i
    }

    /// The `M` states of this block from its state `i` on, as a block of
    /// their own (e.g. the rod position and velocity of the carriage).
    pub const fn sub<const M: usize>(self, i: usize) -> Block<M> {
        assert!(i + M <= LEN, "sub-block outside the block");
        Block {
            start: self.start + i,
        }
    }

    /// The block's values, copied out of `x`.
    #[inline]
    pub fn read<const N: usize>(self, x: &SVector<f64, N>) -> SVector<f64, LEN> {
        let mut values = [0.0; LEN];
        values.copy_from_slice(&x.as_slice()[self.start..self.start + LEN]);
        SVector::from(values)
    }

    /// Writes `values` into the block of `x`.
    #[inline]
    pub fn write<const N: usize>(self, x: &mut SVector<f64, N>, values: &SVector<f64, LEN>) {
        x.as_mut_slice()[self.start..self.start + LEN].copy_from_slice(values.as_slice());
    }

    /// Writes `values` into the block of a plain slice (nominal values).
    pub fn write_slice(self, out: &mut [f64], values: &[f64]) {
        out[self.start..self.start + LEN].copy_from_slice(&values[..LEN]);
    }
}

/// A block of states whose size is known only at run time (a line of `n`
/// segments, `n` a structural parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DynBlock {
    /// Index of the first state.
    pub start: usize,
    /// Number of states.
    pub len: usize,
}

impl DynBlock {
    /// The block of `len` states from `start` on.
    pub const fn new(start: usize, len: usize) -> Self {
        DynBlock { start, len }
    }

    /// The block right after this one, `len` long.
    pub const fn then(self, len: usize) -> Self {
        DynBlock {
            start: self.start + self.len,
            len,
        }
    }

    /// The index of the block's state `i` in the whole state vector.
    pub fn index(self, i: usize) -> usize {
        assert!(i < self.len, "state {i} outside a block of {}", self.len);
        self.start + i
    }

    /// The block's values in `x`.
    pub fn slice(self, x: &[f64]) -> &[f64] {
        &x[self.start..self.start + self.len]
    }

    /// The block's values in `x`, writable.
    pub fn slice_mut(self, x: &mut [f64]) -> &mut [f64] {
        &mut x[self.start..self.start + self.len]
    }
}

/// A writable rectangular part of a Jacobian (rows of one block, columns of
/// another), addressed in the blocks' own indices.
pub type JacobianView<'a, const N: usize> =
    nalgebra::Matrix<f64, Dyn, Dyn, ViewStorageMut<'a, f64, Dyn, Dyn, U1, Const<N>>>;

/// The named-block access to a Jacobian `d(rates)/d(states)`.
pub trait BlockJacobian<const N: usize> {
    /// The part `d(rates of block rows)/d(states of block cols)`.
    fn block<const R: usize, const C: usize>(
        &mut self,
        rows: Block<R>,
        cols: Block<C>,
    ) -> nalgebra::Matrix<
        f64,
        Const<R>,
        Const<C>,
        ViewStorageMut<'_, f64, Const<R>, Const<C>, U1, Const<N>>,
    >;

    /// The column `d(rates of block rows)/d(state col)`.
    fn block_column<const R: usize>(
        &mut self,
        rows: Block<R>,
        col: usize,
    ) -> nalgebra::Matrix<f64, Const<R>, U1, ViewStorageMut<'_, f64, Const<R>, U1, U1, Const<N>>>;

    /// A run-time sized part (rows and columns of dynamic blocks).
    fn dyn_block(&mut self, rows: DynBlock, cols: DynBlock) -> JacobianView<'_, N>;
}

impl<const N: usize> BlockJacobian<N> for SMatrix<f64, N, N> {
    fn block<const R: usize, const C: usize>(
        &mut self,
        rows: Block<R>,
        cols: Block<C>,
    ) -> nalgebra::Matrix<
        f64,
        Const<R>,
        Const<C>,
        ViewStorageMut<'_, f64, Const<R>, Const<C>, U1, Const<N>>,
    > {
        self.fixed_view_mut::<R, C>(rows.start, cols.start)
    }

    fn block_column<const R: usize>(
        &mut self,
        rows: Block<R>,
        col: usize,
    ) -> nalgebra::Matrix<f64, Const<R>, U1, ViewStorageMut<'_, f64, Const<R>, U1, U1, Const<N>>>
    {
        self.fixed_view_mut::<R, 1>(rows.start, col)
    }

    fn dyn_block(&mut self, rows: DynBlock, cols: DynBlock) -> JacobianView<'_, N> {
        self.view_mut((rows.start, cols.start), (rows.len, cols.len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_read_write_and_address_the_jacobian() {
        const A: Block<2> = Block::at(0);
        const B: Block<3> = Block::at(A.end());
        const ROD: Block<2> = B.sub::<2>(0);
        let mut x = SVector::<f64, 5>::from([1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(B.read(&x), SVector::<f64, 3>::from([3.0, 4.0, 5.0]));
        assert_eq!(B.index(2), 4);
        A.write(&mut x, &SVector::<f64, 2>::from([7.0, 8.0]));
        assert_eq!(x[1], 8.0);
        let mut j = SMatrix::<f64, 5, 5>::zeros();
        j.block(B, A).fill(1.0);
        j.block(A, ROD)
            .copy_from(&SMatrix::<f64, 2, 2>::from([[2.0, 3.0], [4.0, 5.0]]));
        j.block_column(A, B.index(2))[1] = 9.0;
        assert_eq!(j[(2, 0)], 1.0);
        assert_eq!(j[(4, 1)], 1.0);
        assert_eq!(j[(0, 2)], 2.0);
        assert_eq!(j[(1, 3)], 5.0);
        assert_eq!(j[(1, 4)], 9.0);
        assert_eq!(j.sum(), 6.0 + 2.0 + 3.0 + 4.0 + 5.0 + 9.0);
        let nodes = DynBlock::new(0, 2);
        let flows = nodes.then(3);
        j.dyn_block(flows, nodes)[(2, 1)] = -1.0;
        assert_eq!(j[(4, 1)], -1.0);
        assert_eq!(flows.index(2), 4);
    }
}
