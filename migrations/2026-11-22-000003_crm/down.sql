DROP TABLE interactions;
DROP TABLE deal_stage_history;
DROP TABLE deals;
DROP TABLE customer_status_history;
DROP TABLE customers;
DROP TABLE companies;
