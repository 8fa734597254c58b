//! Page requests and pages: 1-indexed, `page_size` 1..=100, default 20.

use serde::Serialize;

/// Items per page when the client names no `page_size`.
pub const DEFAULT_PAGE_SIZE: u32 = 20;
/// The largest `page_size` a client may ask for.
pub const MAX_PAGE_SIZE: u32 = 100;

/// Why a client's `page` or `page_size` was refused (400 `VALIDATION_ERROR` naming the parameter).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PaginationError {
    /// `page` is below 1 (or beyond `u32::MAX`).
    #[error("page must be 1 or greater")]
    Page,
    /// `page_size` is outside 1..=[`MAX_PAGE_SIZE`].
    #[error("page_size must be between 1 and 100")]
    PageSize,
}

/// Which page of a list a client asked for: a page number from 1 and a page size in
/// 1..=[`MAX_PAGE_SIZE`]. Only [`PageRequest::new`] and `default()` (page 1 of
/// [`DEFAULT_PAGE_SIZE`]) make one, so a value is always in bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    page: u32,
    page_size: u32,
}

impl Default for PageRequest {
    fn default() -> Self {
        Self { page: 1, page_size: DEFAULT_PAGE_SIZE }
    }
}

impl PageRequest {
    /// Validates the raw query values; an absent `page` is 1 and an absent `page_size` is
    /// [`DEFAULT_PAGE_SIZE`].
    pub fn new(page: Option<i64>, page_size: Option<i64>) -> Result<Self, PaginationError> {
        let page = match page {
            None => 1,
            Some(p) if p >= 1 && p <= i64::from(u32::MAX) => p as u32,
            Some(_) => return Err(PaginationError::Page),
        };
        let page_size = match page_size {
            None => DEFAULT_PAGE_SIZE,
            Some(s) if (1..=i64::from(MAX_PAGE_SIZE)).contains(&s) => s as u32,
            Some(_) => return Err(PaginationError::PageSize),
        };
        Ok(Self { page, page_size })
    }

    /// The page number, from 1.
    pub fn page(&self) -> u32 {
        self.page
    }

    /// Items per page, 1..=[`MAX_PAGE_SIZE`].
    pub fn page_size(&self) -> u32 {
        self.page_size
    }

    /// Rows to skip, as SQL `OFFSET` wants it: `(page − 1) × page_size`.
    pub fn offset(&self) -> i64 {
        (i64::from(self.page) - 1) * i64::from(self.page_size)
    }

    /// Rows to take, as SQL `LIMIT` wants it.
    pub fn limit(&self) -> i64 {
        i64::from(self.page_size)
    }
}

/// How many items a list holds: exact, or (for a very long list, whose exact count would cost more
/// than the page itself) a lower bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Total {
    /// The number of items, or the lower bound when `exact` is false.
    pub count: i64,
    /// Whether `count` is the exact number of items.
    pub exact: bool,
}

impl Total {
    /// Exactly `count` items.
    pub fn exact(count: i64) -> Self {
        Self { count, exact: true }
    }

    /// At least `count`; there may be more.
    pub fn at_least(count: i64) -> Self {
        Self { count, exact: false }
    }
}

impl From<i64> for Total {
    fn from(count: i64) -> Self {
        Self::exact(count)
    }
}

/// One page of a list plus the numbers the list envelope reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Page<T> {
    /// The page's items, at most `page_size` of them, in the list's order.
    pub items: Vec<T>,
    /// How many items the whole list holds (every page), or a lower bound of it.
    pub total: i64,
    /// False when `total` is a lower bound.
    pub total_exact: bool,
    /// The page number asked for, from 1.
    pub page: u32,
    /// The page size asked for.
    pub page_size: u32,
}

impl<T> Page<T> {
    /// The page `request` asked for, holding `items`, of a list of `total` items (a plain `i64` is
    /// an exact total).
    pub fn new(items: Vec<T>, total: impl Into<Total>, request: PageRequest) -> Self {
        let total = total.into();
        Self { items, total: total.count, total_exact: total.exact, page: request.page, page_size: request.page_size }
    }

    /// How many pages of `page_size` the `total` fills, rounded up; 0 for an empty list.
    pub fn total_pages(&self) -> i64 {
        if self.total <= 0 {
            0
        } else {
            (self.total + i64::from(self.page_size) - 1) / i64::from(self.page_size)
        }
    }

    /// The same page with each item converted by `f` (a record into its response), numbers kept.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            total: self.total,
            total_exact: self.total_exact,
            page: self.page,
            page_size: self.page_size,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_bounds() {
        let default = PageRequest::new(None, None).expect("valid");
        assert_eq!((default.page(), default.page_size(), default.offset()), (1, 20, 0));
        let third = PageRequest::new(Some(3), Some(100)).expect("valid");
        assert_eq!((third.offset(), third.limit()), (200, 100));
        assert_eq!(PageRequest::new(Some(0), None), Err(PaginationError::Page));
        assert_eq!(PageRequest::new(Some(-1), None), Err(PaginationError::Page));
        assert_eq!(PageRequest::new(None, Some(0)), Err(PaginationError::PageSize));
        assert_eq!(PageRequest::new(None, Some(101)), Err(PaginationError::PageSize));
    }

    #[test]
    fn total_pages_rounds_up() {
        let request = PageRequest::new(Some(1), Some(20)).expect("valid");
        assert_eq!(Page::new(Vec::<u8>::new(), 0, request).total_pages(), 0);
        assert_eq!(Page::new(Vec::<u8>::new(), 20, request).total_pages(), 1);
        assert_eq!(Page::new(Vec::<u8>::new(), 21, request).total_pages(), 2);
    }
}
