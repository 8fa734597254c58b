//! Order and warehouse adapters shared by the order and warehouse routes, and the event handlers of
//! the order flow (warehouse: reserve / release / commit on order events; orders: fold the replies).

use std::sync::Arc;

use order_domain::application::OrderService;
use order_domain::OrderRepository;
use order_postgres::{PgOrderRepository, WarehouseRepliesHandler};
use postgres_toolkit::DbPool;
use shared_kernel::ports::EventHandler;
use warehouse_domain::{InventoryRepository, LocationRepository, ProductRepository, StockMovementRepository};
use warehouse_postgres::{
    OrderEventsHandler, PgInventoryRepository, PgLocationRepository, PgOrderStockRepository, PgProductRepository,
    PgPurchaseOrderRepository, PgReorderRepository, PgStockMovementRepository, PgSupplierRepository,
    PgTransferRepository,
};

/// The storage ports of orders and the warehouse, as the handlers see them.
#[derive(Clone)]
pub struct CommerceServices {
    pub orders: Arc<dyn OrderRepository>,
    /// The order context's use cases, over `orders`, `products` and the other contexts' ports.
    pub order_service: OrderService,
    pub products: Arc<dyn ProductRepository>,
    pub inventory: Arc<dyn InventoryRepository>,
    pub movements: Arc<dyn StockMovementRepository>,
    pub locations: Arc<dyn LocationRepository>,
    /// The warehouse's use cases over the ports above.
    pub warehouse: crate::routes::warehouse::WarehouseServices,
}

impl CommerceServices {
    pub fn new(pool: &DbPool) -> Self {
        let orders: Arc<dyn OrderRepository> = Arc::new(PgOrderRepository::new(pool.clone()));
        let products: Arc<dyn ProductRepository> = Arc::new(PgProductRepository::new(pool.clone()));
        let inventory: Arc<dyn InventoryRepository> = Arc::new(PgInventoryRepository::new(pool.clone()));
        let locations: Arc<dyn LocationRepository> = Arc::new(PgLocationRepository::new(pool.clone()));
        let clock = Arc::new(shared_kernel::application::SystemClock);
        Self {
            order_service: crate::routes::orders::references::order_service(pool, orders.clone(), products.clone()),
            orders,
            warehouse: crate::routes::warehouse::WarehouseServices::new(
                products.clone(),
                locations.clone(),
                inventory.clone(),
                crate::routes::warehouse::PurchasingPorts {
                    suppliers: Arc::new(PgSupplierRepository::new(pool.clone())),
                    purchase_orders: Arc::new(PgPurchaseOrderRepository::new(pool.clone())),
                    reorder: Arc::new(PgReorderRepository::new(pool.clone())),
                    transfers: Arc::new(PgTransferRepository::new(pool.clone())),
                },
                Arc::new(crate::reference_ports::ReferenceData::new(pool.clone())),
                clock,
            ),
            products,
            inventory,
            movements: Arc::new(PgStockMovementRepository::new(pool.clone())),
            locations,
        }
    }
}

/// The order flow's subscribers: the warehouse reacting to order events, the orders to its replies.
pub fn event_handlers(pool: &DbPool) -> Vec<Arc<dyn EventHandler>> {
    let stock = PgOrderStockRepository::new(pool.clone());
    vec![Arc::new(OrderEventsHandler::new(stock)), Arc::new(WarehouseRepliesHandler::new(pool.clone()))]
}
