//! Page requests and pages: 1-indexed, `page_size` 1..=100, default 20.

use serde::Serialize;

pub const DEFAULT_PAGE_SIZE: u32 = 20;
pub const MAX_PAGE_SIZE: u32 = 100;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PaginationError {
    #[error("page must be 1 or greater")]
    Page,
    #[error("page_size must be between 1 and 100")]
    PageSize,
}

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
    /// Validates optional raw values, applying the defaults.
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

    pub fn page(&self) -> u32 {
        self.page
    }

    pub fn page_size(&self) -> u32 {
        self.page_size
    }

    /// Rows to skip, as SQL `OFFSET` wants it.
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
    pub count: i64,
    pub exact: bool,
}

impl Total {
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
    pub items: Vec<T>,
    pub total: i64,
    /// False when `total` is a lower bound.
    pub total_exact: bool,
    pub page: u32,
    pub page_size: u32,
}

impl<T> Page<T> {
    pub fn new(items: Vec<T>, total: impl Into<Total>, request: PageRequest) -> Self {
        let total = total.into();
        Self { items, total: total.count, total_exact: total.exact, page: request.page, page_size: request.page_size }
    }

    pub fn total_pages(&self) -> i64 {
        if self.total <= 0 {
            0
        } else {
            (self.total + i64::from(self.page_size) - 1) / i64::from(self.page_size)
        }
    }

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
