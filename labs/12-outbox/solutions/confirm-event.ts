// Try it yourself (lesson 12), the reference answer: confirm a sent event by its claim token.
import type { Pool, ResultSetHeader } from 'mysql2/promise';

/**
 * Marks the event sent, only for the publisher that still holds a live claim, and only
 * once. Parameters: [eventId, token]. Affected rows (matched): 1 = confirmed; 0 = another
 * token holds it, the claim passed (someone may be resending it), or it is already sent.
 * The time is the server's NOW(6): the publishers' clocks never decide whether a claim passed.
 */
const CONFIRM_SENT = `
  UPDATE export_outbox
  SET sent_at = NOW(6), claimed_until = NULL
  WHERE id = ? AND claim_token = ? AND sent_at IS NULL AND claimed_until > NOW(6)`;

/** `true` = confirmed by this holder; `false` = this publisher no longer holds the event (or it was already sent). */
export async function confirmSent(pool: Pool, eventId: string, token: string): Promise<boolean> {
  const [confirmed] = await pool.query<ResultSetHeader>(CONFIRM_SENT, [eventId, token]);
  return confirmed.affectedRows === 1;
}
