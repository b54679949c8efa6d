-- Lesson 11: the products an export reads. The course assumes the shop's own products
-- table; the lab brings a small one so every export has something real to freeze.
-- Portable subset: written for MySQL 8.4 and MariaDB 10.11 (see docs/mysql-and-mariadb.md).

CREATE TABLE IF NOT EXISTS products (
  id BIGINT NOT NULL AUTO_INCREMENT,
  name VARCHAR(200) NOT NULL,
  description TEXT NOT NULL,
  is_active BOOLEAN NOT NULL DEFAULT TRUE,
  price_cents INT NOT NULL,
  -- Bumped by every edit, so a test can tell "the product changed" from "nothing happened".
  version INT NOT NULL DEFAULT 1,
  created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  CONSTRAINT products_price_check CHECK (price_cents >= 0),
  PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

-- A few products with known ids (INSERT IGNORE: running the file twice adds nothing).
INSERT IGNORE INTO products (id, name, description, is_active, price_cents) VALUES
  (1, 'Desk lamp', 'Adjustable arm, warm white LED', TRUE, 3499),
  (2, 'Notebook', 'A5, dotted, 120 pages', TRUE, 899),
  (3, 'Fountain pen', 'Steel nib, blue ink cartridge', TRUE, 2450),
  (4, 'Paper tray', 'Stackable, recycled plastic', FALSE, 1299),
  (5, 'Mug', 'Stoneware, 350 ml, with a chipped-glaze finish', TRUE, 1150);
