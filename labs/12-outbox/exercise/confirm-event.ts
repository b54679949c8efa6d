// Try it yourself (lesson 12): confirm a sent event. The publisher has claimed an event
// (it holds a claim token until claimed_until), sent its wake-up to BullMQ, and now marks
// it sent. Only the publisher that still holds a live claim may do that: if its claim
// passed, another publisher may have claimed the event and be sending it right now.
// Check your answer: pnpm -w lab 12 --exercise   (hint: pnpm -w lab 12 --hint)
import type { Pool, ResultSetHeader } from 'mysql2/promise';

/** Parameters: [eventId, token]. */
const CONFIRM_SENT = `
  UPDATE export_outbox
  SET sent_at = NOW(6), claimed_until = NULL
  WHERE id = ?`;
// TODO: only the holder of the claim: compare the token (the query ignores its second parameter).
// TODO: only while the claim is live (claimed_until ahead of the server's NOW(6)), and only once (not sent yet).

/** `true` = confirmed by this holder; `false` = this publisher no longer holds the event (or it was already sent). */
export async function confirmSent(pool: Pool, eventId: string, token: string): Promise<boolean> {
  const [confirmed] = await pool.query<ResultSetHeader>(CONFIRM_SENT, [eventId, token]);
  return confirmed.affectedRows === 1;
}
