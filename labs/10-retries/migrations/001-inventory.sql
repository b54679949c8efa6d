-- Lesson 10 deep dive: deduct stock at most once per order, however often the job runs.
-- The primary key on order_id is the whole idea: a second insert for the same order fails
-- with a duplicate key error (1062), inside the same transaction as the stock update.
-- Portable subset: written for MySQL 8.4 and MariaDB 10.11 (see docs/mysql-and-mariadb.md).

CREATE TABLE IF NOT EXISTS inventory_stock (
  sku VARCHAR(64) NOT NULL,
  quantity INT NOT NULL,
  PRIMARY KEY (sku)
) ENGINE = InnoDB;

CREATE TABLE IF NOT EXISTS inventory_deductions (
  order_id VARCHAR(64) NOT NULL,
  sku VARCHAR(64) NOT NULL,
  quantity INT NOT NULL,
  applied_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (order_id)
) ENGINE = InnoDB;
