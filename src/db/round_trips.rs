//! Counting D1 round trips per request.
//!
//! Every statement reaches D1 through `db::run_batch`, `db::all`, `db::first` or `db::run`,
//! and each of them notes one round trip here. The count belongs to the request whose future
//! was being polled when the call was made: [`Counted`] installs its counter for the length
//! of each poll. An isolate interleaves concurrent requests only between polls (one thread),
//! so a request never counts another's calls. Development answers the count in the
//! `X-D1-Round-Trips` header, so tests can prove how many round trips a request costs.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

/// The response header carrying the count (development only).
pub const HEADER: &str = "X-D1-Round-Trips";

thread_local! {
    /// The counter of the request being polled, if it is counted.
    static CURRENT: RefCell<Option<Rc<Cell<u32>>>> = const { RefCell::new(None) };
}

/// Notes one round trip against the request being polled.
pub fn note() {
    CURRENT.with(|current| {
        if let Some(count) = current.borrow().as_ref() {
            count.set(count.get() + 1);
        }
    });
}

/// A future whose D1 round trips are counted.
pub struct Counted<F: Future> {
    inner: Pin<Box<F>>,
    count: Rc<Cell<u32>>,
}

/// Counts the round trips `work` makes; read the count with [`Counted::counter`].
pub fn counted<F: Future>(work: F) -> Counted<F> {
    Counted { inner: Box::pin(work), count: Rc::new(Cell::new(0)) }
}

impl<F: Future> Counted<F> {
    /// The counter, readable once the future has finished.
    pub fn counter(&self) -> Rc<Cell<u32>> {
        self.count.clone()
    }
}

impl<F: Future> Future for Counted<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let count = self.count.clone();
        let previous = CURRENT.with(|current| current.replace(Some(count)));
        let answer = self.inner.as_mut().poll(cx);
        CURRENT.with(|current| *current.borrow_mut() = previous);
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: Future>(future: F) -> F::Output {
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut future = Box::pin(future);
        loop {
            if let Poll::Ready(answer) = future.as_mut().poll(&mut cx) {
                return answer;
            }
        }
    }

    #[test]
    fn calls_count_against_the_request_being_polled() {
        let outer = counted(async {
            note();
            let inner = counted(async {
                note();
                note();
            });
            let inner_count = inner.counter();
            inner.await;
            note();
            inner_count.get()
        });
        let outer_count = outer.counter();
        assert_eq!(block_on(outer), 2);
        assert_eq!(outer_count.get(), 2);
    }

    #[test]
    fn calls_outside_a_counted_request_count_nowhere() {
        note();
        let work = counted(async {});
        let count = work.counter();
        block_on(work);
        assert_eq!(count.get(), 0);
    }
}
