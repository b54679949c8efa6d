// Every statement lesson 14 adds, by name, with what it guarantees and what its row count
// means. `?` parameters only.

/**
 * The job already scheduled for a slot, if any. A plain read: a slot committed before it
 * started is seen (READ COMMITTED); one being written right now is not, and the unique key
 * decides that race (see schedule-once.ts). Rows: 0 or 1. Parameters: [slotKey].
 */
export const FIND_SLOT = `
  SELECT job_id
  FROM export_schedule_slots
  WHERE slot_key = ?`;

/**
 * The slot, inside the scheduling transaction, AFTER its job (the foreign key is checked at
 * once). A second transaction inserting the same key waits for the first to end, then gets
 * 1062 (duplicate) if the first committed. Affected rows: 1. Parameters: [slotKey, jobId].
 */
export const INSERT_SLOT = `
  INSERT INTO export_schedule_slots (slot_key, job_id)
  VALUES (?, ?)`;

/** What a periodic run exports: the first N products by id (the course's LIMIT 100). Parameters: [n]. */
export const PICK_SCHEDULE_PRODUCTS = `
  SELECT id
  FROM products
  ORDER BY id
  LIMIT ?`;

/** The latest slots, newest first (the course's step 6). Parameters: [n]. */
export const LATEST_SLOTS = `
  SELECT slot_key, job_id, created_at
  FROM export_schedule_slots
  ORDER BY created_at DESC, slot_key DESC
  LIMIT ?`;

/** The slots whose key starts with a prefix (the checks' own, never a student's). Parameters: [likePattern]. */
export const SLOTS_WITH_PREFIX = `
  SELECT slot_key, job_id, created_at
  FROM export_schedule_slots
  WHERE slot_key LIKE ?
  ORDER BY created_at, slot_key`;
