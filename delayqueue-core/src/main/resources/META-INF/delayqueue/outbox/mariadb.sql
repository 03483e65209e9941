-- The delayqueue outbox table for MariaDB 10.6+ and MySQL 8+ (docs/outbox.md). Apply it with your
-- migration tool, or set delayqueue.outbox.initialize-schema=true. Another table name: replace
-- delayqueue_outbox.
CREATE TABLE IF NOT EXISTS delayqueue_outbox (
    seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    queue_name VARCHAR(100) NOT NULL,
    message_id VARCHAR(256) NOT NULL,
    message_key VARCHAR(256),
    envelope LONGBLOB NOT NULL,
    due_at BIGINT NOT NULL,
    send_mode CHAR(1) NOT NULL,
    created_at BIGINT NOT NULL,
    retry_at BIGINT NOT NULL,
    INDEX delayqueue_outbox_message_id (message_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
