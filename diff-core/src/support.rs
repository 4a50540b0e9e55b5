//! More helpers for generated code: typing closures, accumulating into parts of
//! tangents, capturing lifetimes, and the dense Jacobian.
use crate::{Differentiable, VectorSpace};

/// Adds `v` into a part of a tangent (`whole.field`, `whole[i]`).
#[inline(always)]
pub fn accumulate_into<T: VectorSpace>(place: &mut T, v: T) {
    let old = core::mem::replace(place, T::zero_vector());
    *place = old.add(v);
}

/// Lets a returned closure capture a lifetime in any edition (`impl Fn() + Captures<'a>`).
pub trait Captures<'a> {}
impl<T: ?Sized> Captures<'_> for T {}

/// Gives a pullback closure written in place its seed type: the tangent of the value.
#[inline(always)]
pub fn with_pullback<V, F, S>(value_and_pullback: (V, F)) -> (V, F)
where
    V: Differentiable,
    F: FnOnce(V::TangentVector) -> S,
{
    value_and_pullback
}

/// The input slots of a differential of inputs whose zero tangents are `Self`
/// (a tuple of references to them): a tuple of `Option`s of those tangents.
pub trait SlotsOf {
    /// The tuple of optional tangents.
    type Slots;
}

macro_rules! slots_of {
    ($($t:ident),+) => {
        impl<'a, $($t: 'a),+> SlotsOf for ($(&'a $t,)+) {
            type Slots = ($(Option<$t>,)+);
        }
    };
}
slots_of!(A);
slots_of!(A, B);
slots_of!(A, B, C);
slots_of!(A, B, C, D);
slots_of!(A, B, C, D, E);
slots_of!(A, B, C, D, E, G);

/// Gives a differential closure written in place its input type, from zeros shaped like
/// the inputs' tangents.
#[inline(always)]
pub fn with_differential<Z, V, F>(_zeros: Z, value_and_differential: (V, F)) -> (V, F)
where
    Z: SlotsOf,
    V: Differentiable,
    F: FnOnce(Z::Slots) -> Option<V::TangentVector>,
{
    value_and_differential
}

/// The capacity to reserve for a loop's tape: the trip count when the iterator knows it
/// exactly, else nothing (the tape grows by doubling).
#[inline(always)]
pub fn tape_capacity<I: Iterator>(iter: &I) -> usize {
    match iter.size_hint() {
        (lo, Some(hi)) if lo == hi => lo,
        _ => 0,
    }
}

/// A loop's tape: one linear-map struct per iteration, pushed by the loop's [`Trips`].
pub struct Tape<T>(Vec<T>);

/// Where a loop pushes its iterations' linear maps: a [`Tape`], or a [`Stack`] for a
/// loop nested in another.
pub trait Room {
    /// An iteration's linear map.
    type Item;
    /// Whether one more iteration fits without growing.
    fn has_room(&self) -> bool;
    /// Grows the buffer if it is full (a call the loop makes only for [`UnknownTrips`]).
    fn make_room(&mut self);
    /// Appends an iteration's linear map, in the room [`has_room`](Self::has_room) saw.
    ///
    /// # Panics
    /// If there is no room.
    fn push_within(&mut self, x: Self::Item);
}

/// How a loop pushes its iterations on its tape, chosen from the iterator's type by
/// `(&TripProbe(&iter)).trips()`:
///
/// - [`KnownTrips`] for std's iterators whose `size_hint` is exact ([`TripCountKnown`]:
///   ranges of integers, iterators over slices, `Vec`s and arrays, and adaptors of them
///   that keep the count known). The tape is reserved for the whole loop before it
///   starts ([`tape_capacity`]), so a push never grows it and the loop calls nothing
///   that returns: a call in the loop, even a cold one, makes LLVM keep the loop's
///   floats in memory across iterations (Rosenbrock's gradient took twice as long).
/// - [`UnknownTrips`] for any other iterator (a `while` or `loop`, a `filter`, a user's
///   iterator): the tape grows when full.
pub trait Trips: Copy {
    /// Pushes an iteration's linear map.
    fn push<R: Room>(self, room: &mut R, x: R::Item);
}

/// See [`Trips`].
#[derive(Clone, Copy)]
pub struct KnownTrips;

/// See [`Trips`].
#[derive(Clone, Copy)]
pub struct UnknownTrips;

impl Trips for KnownTrips {
    #[inline(always)]
    fn push<R: Room>(self, room: &mut R, x: R::Item) {
        if !room.has_room() {
            more_trips_than_known();
        }
        room.push_within(x);
    }
}

/// A loop whose iterator's type promised a known trip count ran past the room reserved
/// for it: the iterator's `size_hint` was not exact, which std's ranges do only when
/// their length does not fit in a `usize` (`0..=usize::MAX`).
#[cold]
#[inline(never)]
fn more_trips_than_known() -> ! {
    panic!(
        "a differentiated loop ran more iterations than its range's length, which does not fit in a usize: its tape could not be reserved; loop over `0..` or with `loop` instead"
    )
}

impl Trips for UnknownTrips {
    #[inline(always)]
    fn push<R: Room>(self, room: &mut R, x: R::Item) {
        room.make_room();
        room.push_within(x);
    }
}

/// `(&TripProbe(&iter)).trips()`: see [`Trips`] (method resolution prefers the impl on
/// `TripProbe` to the one on `&TripProbe`).
pub struct TripProbe<'a, I>(pub &'a I);

/// See [`TripProbe`].
pub trait ProbeKnownTrips {
    /// The iterator's trip count is known on entry.
    fn trips(&self) -> KnownTrips;
}

impl<I: TripCountKnown> ProbeKnownTrips for TripProbe<'_, I> {
    #[inline(always)]
    fn trips(&self) -> KnownTrips {
        KnownTrips
    }
}

/// See [`TripProbe`].
pub trait ProbeUnknownTrips {
    /// The iterator's trip count may not be known on entry.
    fn trips(&self) -> UnknownTrips;
}

impl<I> ProbeUnknownTrips for &TripProbe<'_, I> {
    #[inline(always)]
    fn trips(&self) -> UnknownTrips {
        UnknownTrips
    }
}

/// Iterators of std whose `size_hint` is exact (lower bound equal to the upper), so
/// that [`tape_capacity`] reserves a loop's whole tape. A wrong claim is not unsafe: a
/// push beyond the reservation panics (see [`KnownTrips`]).
pub trait TripCountKnown: Iterator {}

macro_rules! trip_count_known {
    ($($t:ty),*) => {$(
        impl TripCountKnown for core::ops::Range<$t> {}
        impl TripCountKnown for core::ops::RangeInclusive<$t> {}
    )*};
}
trip_count_known!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl<T> TripCountKnown for core::slice::Iter<'_, T> {}
impl<T> TripCountKnown for core::slice::IterMut<'_, T> {}
impl<T> TripCountKnown for core::slice::Windows<'_, T> {}
impl<T> TripCountKnown for core::slice::Chunks<'_, T> {}
impl<T> TripCountKnown for core::slice::ChunksExact<'_, T> {}
impl<T> TripCountKnown for std::vec::IntoIter<T> {}
impl<T, const N: usize> TripCountKnown for core::array::IntoIter<T, N> {}
impl<I: TripCountKnown> TripCountKnown for core::iter::Enumerate<I> {}
impl<I: TripCountKnown + DoubleEndedIterator> TripCountKnown for core::iter::Rev<I> {}
impl<I: TripCountKnown> TripCountKnown for core::iter::Skip<I> {}
impl<I: TripCountKnown> TripCountKnown for core::iter::Take<I> {}
impl<I: TripCountKnown> TripCountKnown for core::iter::StepBy<I> {}
impl<A: TripCountKnown, B: TripCountKnown> TripCountKnown for core::iter::Zip<A, B> {}
impl<B, I: TripCountKnown, F: FnMut(I::Item) -> B> TripCountKnown for core::iter::Map<I, F> {}
impl<'a, T: 'a + Copy, I: TripCountKnown<Item = &'a T>> TripCountKnown for core::iter::Copied<I> {}
impl<'a, T: 'a + Clone, I: TripCountKnown<Item = &'a T>> TripCountKnown for core::iter::Cloned<I> {}

impl<T> Tape<T> {
    /// A tape with room for `n` iterations.
    #[inline(always)]
    pub fn with_capacity(n: usize) -> Self {
        Tape(Vec::with_capacity(n))
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.0.reserve(self.0.len().max(4));
    }
}

impl<T> Room for Tape<T> {
    type Item = T;

    #[inline(always)]
    fn has_room(&self) -> bool {
        self.0.len() < self.0.capacity()
    }

    /// Grows the tape if it is full (by doubling, as `Vec::push` would).
    #[inline(always)]
    fn make_room(&mut self) {
        if !self.has_room() {
            self.grow();
        }
    }

    #[inline(always)]
    fn push_within(&mut self, x: T) {
        assert!(self.has_room(), "tape full");
        self.0.push(x);
    }
}

impl<T> IntoIterator for Tape<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    #[inline(always)]
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// The tapes of every run of a loop nested in another, one after another: what a
/// nested loop pushes its iterations on, so that a run does not allocate a tape of its
/// own. Made of chunks (about 32 KiB, more for a longer run) that are never moved, so
/// that growing copies at most the open run and the memory comes from the allocator's
/// reusable blocks; a run lies within one chunk, so the pullback walks it as a slice.
///
/// A run is [`begin_run`](Self::begin_run) (room for the run when its trip count is
/// known), iterations pushed like a [`Tape`]'s (by the loop's [`Trips`]), then
/// [`end_run`](Self::end_run), whose length the enclosing iteration keeps.
pub struct Stack<T> {
    full: Vec<Vec<T>>,
    current: Vec<T>,
    /// Where the open run starts in `current`.
    run: usize,
}

impl<T> Default for Stack<T> {
    fn default() -> Self {
        Stack::new()
    }
}

impl<T> Stack<T> {
    /// An empty stack; it allocates at the first run.
    #[inline(always)]
    pub fn new() -> Self {
        Stack {
            full: Vec::new(),
            current: Vec::new(),
            run: 0,
        }
    }

    /// Whether the stack holds no iteration.
    pub fn is_empty(&self) -> bool {
        self.current.is_empty() && self.full.iter().all(Vec::is_empty)
    }

    /// Opens a run of about `expected` iterations (a hint; see [`tape_capacity`]).
    #[inline(always)]
    pub fn begin_run(&mut self, expected: usize) {
        if self.current.capacity() - self.current.len() < expected {
            self.new_chunk(expected);
        }
        self.run = self.current.len();
    }

    /// Closes the open run: its number of iterations.
    #[inline(always)]
    pub fn end_run(&mut self) -> usize {
        self.current.len() - self.run
    }

    #[cold]
    #[inline(never)]
    fn new_chunk(&mut self, expected: usize) {
        let open = self.current.len() - self.run;
        let size = core::mem::size_of::<T>().max(1);
        let capacity = (2 * self.current.capacity())
            .clamp(8, (32 * 1024 / size).max(8))
            .max(2 * open)
            .max(open + expected);
        let mut next = Vec::with_capacity(capacity);
        next.extend(self.current.drain(self.run..));
        let full = core::mem::replace(&mut self.current, next);
        if !full.is_empty() {
            self.full.push(full);
        }
        self.run = 0;
    }

    /// Takes the last run, of `n` iterations, off the stack, in the order they were
    /// pushed: a nested loop's last run, walked backwards by the pullback.
    ///
    /// # Panics
    /// If the stack's last run is shorter than `n`.
    #[inline(always)]
    pub fn pop_run(&mut self, n: usize) -> std::vec::Drain<'_, T> {
        if self.current.len() < n {
            // The current chunk is used up (a run never spans two).
            self.current = self
                .full
                .pop()
                .expect("a nested loop's run is on its stack");
        }
        let start = self.current.len() - n;
        self.current.drain(start..)
    }

    /// The iterations from the first on, for [`StackFront::take_first`]: a nested
    /// loop's runs, walked forwards by the differential.
    pub fn into_front(mut self) -> StackFront<T> {
        self.full.push(self.current);
        StackFront(self.full.into_iter().flatten())
    }
}

impl<T> Room for Stack<T> {
    type Item = T;

    /// Whether one more iteration fits in the current chunk.
    #[inline(always)]
    fn has_room(&self) -> bool {
        self.current.len() < self.current.capacity()
    }

    /// Starts a new chunk, with the open run moved into it, if the current one is full.
    #[inline(always)]
    fn make_room(&mut self) {
        if !self.has_room() {
            self.new_chunk(0);
        }
    }

    #[inline(always)]
    fn push_within(&mut self, x: T) {
        assert!(self.has_room(), "tape full");
        self.current.push(x);
    }
}

/// A [`Stack`] read from the front (see [`Stack::into_front`]).
pub struct StackFront<T>(core::iter::Flatten<std::vec::IntoIter<Vec<T>>>);

impl<T> StackFront<T> {
    /// The next `n` iterations: the next run of the loop.
    #[inline(always)]
    pub fn take_first(
        &mut self,
        n: usize,
    ) -> core::iter::Take<&mut core::iter::Flatten<std::vec::IntoIter<Vec<T>>>> {
        self.0.by_ref().take(n)
    }
}

#[cfg(test)]
mod stack_tests {
    use super::{KnownTrips, Stack, Trips, UnknownTrips};
    use super::{ProbeKnownTrips as _, ProbeUnknownTrips as _, TripProbe};

    /// Runs of the given lengths pushed one after another, as a nested loop pushes them:
    /// iteration `k` of run `r` is `(r, k)`.
    fn pushed(runs: &[usize]) -> Stack<(usize, usize)> {
        let mut stack = Stack::new();
        for (r, n) in runs.iter().enumerate() {
            // A hint below, at or above the run's length; pushed as a loop whose trip
            // count is known (the hint is the length) or not.
            let hint = r % 3 * n / 2;
            stack.begin_run(hint);
            for k in 0..*n {
                if hint == *n {
                    KnownTrips.push(&mut stack, (r, k));
                } else {
                    UnknownTrips.push(&mut stack, (r, k));
                }
            }
            assert_eq!(stack.end_run(), *n);
        }
        stack
    }

    /// Runs come back whole across chunk boundaries: the last run first from the back
    /// (each backwards, with its positions), the first run first from the front.
    #[test]
    fn runs_come_back_in_order() {
        let runs: Vec<usize> = (0..300).map(|i| (i * 7) % 41 + i / 100 * 3000).collect();
        let mut front = pushed(&runs).into_front();
        for (r, n) in runs.iter().enumerate() {
            let run: Vec<_> = front.take_first(*n).collect();
            assert_eq!(run, (0..*n).map(|k| (r, k)).collect::<Vec<_>>());
        }
        let mut back = pushed(&runs);
        for (r, n) in runs.iter().enumerate().rev() {
            let run: Vec<_> = back.pop_run(*n).enumerate().rev().collect();
            assert_eq!(run, (0..*n).rev().map(|k| (k, (r, k))).collect::<Vec<_>>());
        }
        assert!(back.is_empty());
    }

    /// The probe tells iterators whose trip count is known (the tape is reserved whole)
    /// from the others (the tape grows). Written as the generated code writes it.
    #[test]
    #[allow(clippy::needless_borrow)]
    fn trips_follow_the_iterator() {
        let v = vec![1.0, 2.0, 3.0];
        let known: [KnownTrips; 4] = [
            (&TripProbe(&(0..3))).trips(),
            (&TripProbe(&v.iter().enumerate().rev())).trips(),
            (&TripProbe(&v.windows(2).zip(0..2).map(|(w, _)| w[0]))).trips(),
            (&TripProbe(&(0u32..=4).step_by(2).skip(1))).trips(),
        ];
        let unknown: [UnknownTrips; 3] = [
            (&TripProbe(&(0usize..))).trips(),
            (&TripProbe(&v.iter().filter(|x| **x > 1.0))).trips(),
            (&TripProbe(&v.iter().chain(&v))).trips(),
        ];
        assert_eq!((known.len(), unknown.len()), (4, 3));
    }
}

/// Element `i` of `xs`, read again by a linear map instead of saved: `xs` is an array
/// parameter the function never updates, and the function read `xs[i]`
/// with this same `i` (saved, or computed again by the same integer operations) in the
/// same region of its body, so the index was checked there. The check is kept in debug
/// builds; in release a bounds check here (a panic in the loop) would keep the loop's
/// carried adjoints in memory.
#[inline(always)]
pub fn read_again<T: Clone>(xs: &[T], i: usize) -> T {
    debug_assert!(i < xs.len(), "diff: a linear map read past a collection");
    // SAFETY: `i < xs.len()`: the function indexed the same unchanged `xs` with `i` (its
    // bounds-checked read) before this linear map existed; see above.
    unsafe { xs.get_unchecked(i) }.clone()
}

/// The `k`-th item of a range starting at `start` (`start + k`), recomputed in a linear
/// map instead of saved.
#[inline(always)]
pub fn nth_from<I: RangeItem>(start: I, k: usize) -> I {
    start.nth_from(k)
}

/// Integers a loop variable over a range can be.
pub trait RangeItem: Copy {
    /// `self + k`.
    fn nth_from(self, k: usize) -> Self;
}

macro_rules! range_items {
    ($($t:ty),*) => {$(
        impl RangeItem for $t {
            #[inline(always)]
            fn nth_from(self, k: usize) -> Self {
                // The range produced this item, so the sum fits.
                self.wrapping_add(k as $t)
            }
        }
    )*};
}
range_items!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

/// Collections whose elements are scalars: the neutral elements of `sum()` and
/// `product()` over them.
pub trait Elements {
    /// The element type.
    type Element: num_traits::Zero + num_traits::One;
}
impl<T: num_traits::Zero + num_traits::One> Elements for [T] {
    type Element = T;
}
impl<T: num_traits::Zero + num_traits::One> Elements for Vec<T> {
    type Element = T;
}
impl<T: num_traits::Zero + num_traits::One, const N: usize> Elements for [T; N] {
    type Element = T;
}
impl<C: Elements + ?Sized> Elements for &C {
    type Element = C::Element;
}
impl<C: Elements + ?Sized> Elements for &mut C {
    type Element = C::Element;
}

/// Zero of a collection's element type (the start of a `sum()`).
#[inline(always)]
pub fn zero_element<C: Elements + ?Sized>(_: &C) -> C::Element {
    num_traits::Zero::zero()
}

/// One of a collection's element type (the start of a `product()`).
#[inline(always)]
pub fn one_element<C: Elements + ?Sized>(_: &C) -> C::Element {
    num_traits::One::one()
}

/// The default of the type of `x` (what `std::mem::take(&mut x)` leaves behind: `0.0`,
/// an empty `Vec`), named through a value so that no type needs writing.
#[inline(always)]
pub fn default_like<T: Default>(_: &T) -> T {
    T::default()
}

/// An array shaped like `xs` holding copies of `first`: where `xs.map(f)` writes `f`'s
/// results one element at a time, seeded with `f(xs[0])` (`None` for an empty array), so
/// that the element type needs no `Default` (a generic `T: Float` has none).
#[inline(always)]
pub fn array_like<T, U: Clone, const N: usize>(_: &[T; N], first: Option<U>) -> [U; N] {
    array_seeded(first)
}

/// An array of `N` copies of `first` (`None` for `N = 0`): where
/// `std::array::from_fn(|i| e)` writes `e` one element at a time.
#[inline(always)]
pub fn array_seeded<U: Clone, const N: usize>(first: Option<U>) -> [U; N] {
    match first {
        Some(u) => core::array::from_fn(|_| u.clone()),
        None => core::array::from_fn(|_| unreachable!("only an empty array has no first element")),
    }
}

/// Checks a registered pullback's type: it takes the result's tangent `S` and returns
/// the tangents `G` of the differentiated parameters (a tuple for several).
#[inline(always)]
pub fn registered_pullback<S, G, F: FnOnce(S) -> G>(pullback: F) -> F {
    pullback
}

/// Checks a registered differential's type: it takes the tangents `D` of the
/// differentiated parameters (a tuple for several) and returns the result's tangent `T`.
#[inline(always)]
pub fn registered_differential<D, T, F: FnOnce(D) -> T>(differential: F) -> F {
    differential
}

/// The inner product of two optional tangents (`None` is zero), as `f64`: a mode derived
/// from a registration written for `f64` or `f32`, whose tangents may be the user's
/// structs' (which pair as [`InnerProduct`](crate::InnerProduct) only).
#[inline(always)]
pub fn dot_opt<T: crate::InnerProduct>(a: &Option<T>, b: &Option<T>) -> f64 {
    match (a, b) {
        (Some(a), Some(b)) => a.dot(b),
        _ => 0.0,
    }
}

/// A scalar from an `f64` (an inner product, for a derived derivative).
#[inline(always)]
pub fn from_f64<T: num_traits::NumCast>(x: f64) -> T {
    match T::from(x) {
        Some(t) => t,
        None => panic!("diff: {x} is not representable in the result's scalar type"),
    }
}

/// The inner product of two tangents in their own scalar type (`f64`, `f32`, or a dual
/// number at second order): a mode derived from a registration generic over its scalar,
/// so that on dual numbers the pairing keeps its derivative.
#[inline(always)]
pub fn dot_in<S, T: crate::DotIn<S>>(a: &T, b: &T) -> S {
    a.dot_in(b)
}

/// The sum of scalars (zero for none): the terms of a derived differential.
#[inline(always)]
pub fn scalar_sum<S: num_traits::Zero, const N: usize>(terms: [S; N]) -> S {
    terms.into_iter().fold(S::zero(), |s, t| s + t)
}

// ---- `hessian!`: forward over reverse, with dual numbers ----

/// A variable a closure given to an operator captures, read by the inlined body:
/// `(&Captured(&x)).capture()` is a copy of `x` when its type is `Clone` (so the
/// operator does not consume it) and a reference to it otherwise (a model that is not
/// `Clone`, called as `m.value(p)`), chosen by method lookup.
pub struct Captured<'a, T: ?Sized>(pub &'a T);

/// [`Captured`] of a `Clone` type: a copy.
pub trait CaptureByClone<T> {
    /// A copy of the captured value.
    fn capture(&self) -> T;
}
impl<T: Clone> CaptureByClone<T> for Captured<'_, T> {
    #[inline(always)]
    fn capture(&self) -> T {
        self.0.clone()
    }
}

/// [`Captured`] of any other type: a reference.
pub trait CaptureByRef<'a, T: ?Sized> {
    /// The captured value, borrowed.
    fn capture(&self) -> &'a T;
}
impl<'a, T: ?Sized> CaptureByRef<'a, T> for &Captured<'a, T> {
    #[inline(always)]
    fn capture(&self) -> &'a T {
        self.0
    }
}

/// A value a linear map saves that may be a reference (a loop's item, a `match` arm's
/// binding): saved as a copy of its referent ([`SaveReferent`]) when it is one, else as a
/// copy of itself ([`SaveValue`]); the first applies where both would, as a method found
/// without autoref.
pub struct Saving<'a, T>(pub &'a T);

/// [`Saving`] of a reference: a copy of the referent.
pub trait SaveReferent<T> {
    /// The copy.
    fn save(&self) -> T;
}
impl<T: Clone> SaveReferent<T> for Saving<'_, &T> {
    #[inline(always)]
    fn save(&self) -> T {
        (*self.0).clone()
    }
}

/// [`Saving`] of a value that is not a reference: a copy.
pub trait SaveValue<T> {
    /// The copy.
    fn save(&self) -> T;
}
impl<T: Clone> SaveValue<T> for &Saving<'_, T> {
    #[inline(always)]
    fn save(&self) -> T {
        self.0.clone()
    }
}

/// The key of a function's carrier where no path reaches the carrier: a public function
/// in a module of its own name, re-exported by name out of that module (`mod erf; pub
/// use self::erf::erf;`), whose carrier the module shadows there. `H` hashes the
/// function's crate and name; its carrier implements [`Carrier`] for the key, which
/// trait selection finds from anywhere (`<<Key<H> as Carrier<_>>::Target>::__vjp`).
pub struct Key<const H: u64>;

/// Maps a [`Key`] to the carrier it keys, `L` being the carrier itself (so that the
/// carrier's crate may implement it: see [`Key`]).
pub trait Carrier<L> {
    /// The carrier.
    type Target;
}
