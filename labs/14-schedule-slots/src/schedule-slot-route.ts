// Lesson 14's one new route, mounted on lesson 13's API by src/app.ts:
//
//   POST /schedule-slots   {"product_ids": [1, 2], "slot_key": "shop-export:20260101T1000"}
//                       or {"product_ids": [1, 2], "at": "2026-01-01T10:00:59Z"}
//                          Exactly one of slot_key and at: `at` names the course's slot, the UTC
//                          minute of that time (executionSlot); a time without its zone is refused.
//                          scheduleOnce decides, and answers only after its COMMIT:
//                          202 {status: 'scheduled', slot_key, job_id} + Location: /exports/<job id>
//                          200 {status: 'already-scheduled', slot_key, job_id}: the slot's job; nothing created
//                          503 + Retry-After (lesson 13's): the service is full and the slot is new
//                          400: both slot_key and at, or neither; a bad slot key; a time without a zone
//
// The body is checked at the edge, before any connection is taken: lesson 01's requireJson and
// parseJsonBody, then a zod schema, then the slot key's own rule.
import type { Express } from 'express';
import { z } from 'zod';
import {
  AppError,
  allowOnly,
  exportRequestSchema,
  parseJsonBody,
  parseRequestBody,
  requireJson,
} from '@tasks-lab/01-state-machine';
import type { AppOptions as AdmissionAppOptions } from '@tasks-lab/13-admission';
import { errorMessage } from '@tasks-lab/lab-kit';
import { scheduleOnce, type ScheduleResult } from './schedule-once.ts';
import { checkSlotKey, executionSlot } from './slot-keys.ts';

/** Lesson 13's API options, plus how this route decides (the can-fail fixtures swap these). */
export interface ScheduleSlotRouteOptions extends AdmissionAppOptions {
  /** How a slot is scheduled. @defaultValue scheduleOnce (the can-fail fixtures pass broken ones) */
  schedule?: typeof scheduleOnce;
  /** How `at` becomes a slot key. @defaultValue executionSlot (the course's UTC minute) */
  slotOfTime?: typeof executionSlot;
  /** Every answer of POST /schedule-slots, after its COMMIT. @defaultValue one log line */
  onSchedule?: (result: ScheduleResult) => void;
}

/** What POST /schedule-slots takes. Unknown fields are refused, as on POST /exports (a typo such as "slotKey"). */
export const scheduleSlotRequestSchema = z
  .object({
    product_ids: exportRequestSchema.shape.product_ids,
    slot_key: z.string().optional().meta({ description: "the slot's name: 1 to 160 printable ASCII characters" }),
    at: z
      .string()
      .optional()
      .meta({ description: 'an ISO 8601 time WITH its zone ("Z" or "+02:00"): the slot is its UTC minute' }),
  })
  .strict();
export type ScheduleSlotRequest = z.infer<typeof scheduleSlotRequestSchema>;

/** What the client gets back, 202 or 200. */
export interface ScheduleSlotResponse {
  status: ScheduleResult['status'];
  slot_key: string;
  job_id: string;
}

/** Parses the body the way lesson 01 parses an export request: one AppError listing every problem by path. */
export function parseScheduleSlotRequest(body: unknown): ScheduleSlotRequest {
  return parseRequestBody(scheduleSlotRequestSchema, body, 'schedule request');
}

/** Both names of a slot, or neither: the request does not say which slot it means. */
export class SlotKeyOrTimeError extends AppError {
  constructor() {
    super(
      'slot-key-or-at',
      'Send exactly one of "slot_key" (the slot\'s name) and "at" (a time with its zone, e.g. "2026-01-01T10:00:59Z")',
      400,
    );
  }
}

/** The slot a request names: its slot_key as sent (checked), or the slot of its `at`. Throws a 400 before anything is written. */
export function slotKeyOf(request: ScheduleSlotRequest, slotOfTime: typeof executionSlot = executionSlot): string {
  const { slot_key: slotKey, at } = request;
  if (slotKey !== undefined && at === undefined) return checkSlotKey(slotKey);
  if (at !== undefined && slotKey === undefined) return slotOfTime(at);
  throw new SlotKeyOrTimeError();
}

/** "scheduled slot shop-export:20260101T1000: job …" or "slot … already scheduled: job …": one line per answer. */
export function describeSchedule(result: ScheduleResult): string {
  return result.status === 'scheduled'
    ? `scheduled slot ${result.slotKey}: job ${result.jobId}`
    : `slot ${result.slotKey} already scheduled: job ${result.jobId}`;
}

/** Adds POST /schedule-slots to an app (src/app.ts passes it to lesson 13's createApp as its routes). */
export function mountScheduleSlotRoute(app: Express, options: ScheduleSlotRouteOptions): void {
  const schedule = options.schedule ?? scheduleOnce;
  const slotOfTime = options.slotOfTime ?? executionSlot;
  const log = options.log ?? console.error;
  const onSchedule = options.onSchedule ?? ((result: ScheduleResult) => console.log(describeSchedule(result)));
  app
    .route('/schedule-slots')
    .post(requireJson, parseJsonBody, async (req, res) => {
      const request = parseScheduleSlotRequest(req.body);
      const slotKey = slotKeyOf(request, slotOfTime);
      // Returns only after the COMMIT (or the read of the slot's job): the answer is a fact.
      const result = await schedule(options.pool, slotKey, request.product_ids, {
        rules: options.rules,
        deadlineMs: options.deadlineMs,
      });
      onSchedule(result);
      // A nudge on both answers, as lesson 12 does on a replay: it costs one PUBLISH, and an
      // event whose first nudge was lost is sent now instead of at the publisher's next poll.
      try {
        await options.nudge();
      } catch (err) {
        log(
          `slot ${slotKey} is saved, but the nudge failed; the publisher's polling will send its event: ${errorMessage(err).slice(0, 200)}`,
        );
      }
      const answer: ScheduleSlotResponse = {
        status: result.status,
        slot_key: result.slotKey,
        job_id: result.jobId,
      };
      if (result.status === 'scheduled') res.status(202).location(`/exports/${result.jobId}`).json(answer);
      else res.status(200).json(answer);
    })
    .all(allowOnly('POST'));
}
