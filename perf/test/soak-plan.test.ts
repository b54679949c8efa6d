// The soak's plan comes from its seed alone: the same seed gives the same jobs and the same
// faults at the same moments (a failing run can be run again), and every plan has every kind.
import { describe, expect, it } from 'vitest';
import { parseSoakArgs } from '../scripts/soak.ts';
import { FAULT_KINDS, planSoak, PROFILES, seededRandom, SOAK_PRODUCTS, submissionKey } from '../scripts/soak-plan.ts';

const LEASE_MS = 1500;

describe('planSoak', () => {
  it('gives the same plan for the same seed, and another for another seed', () => {
    expect(planSoak(42, PROFILES.ci, LEASE_MS)).toEqual(planSoak(42, PROFILES.ci, LEASE_MS));
    expect(planSoak(43, PROFILES.ci, LEASE_MS).faults).not.toEqual(planSoak(42, PROFILES.ci, LEASE_MS).faults);
  });

  it('has every kind of fault in every plan, in time order, inside a window a little past the load', () => {
    for (let seed = 0; seed < 50; seed += 1) {
      const { faults } = planSoak(seed, PROFILES.ci, LEASE_MS);
      expect(new Set(faults.map((f) => f.kind))).toEqual(new Set(FAULT_KINDS));
      expect(faults.map((f) => f.atMs)).toEqual([...faults.map((f) => f.atMs)].sort((a, b) => a - b));
      expect(faults.every((f) => f.atMs < PROFILES.ci.submitWindowMs + 20_000)).toBe(true);
    }
  });

  it('pauses a worker for longer than the lease, so that its leases really expire', () => {
    for (let seed = 0; seed < 20; seed += 1) {
      for (const fault of planSoak(seed, PROFILES.ci, LEASE_MS).faults.filter((f) => f.kind === 'pause-worker'))
        expect(fault.holdMs).toBeGreaterThan(LEASE_MS);
    }
  });

  it('never overlaps two faults on one target (a worker, the broker)', () => {
    for (let seed = 0; seed < 20; seed += 1) {
      const { faults } = planSoak(seed, PROFILES.manual, LEASE_MS);
      const targetOf = (kind: string, target: number) =>
        kind.includes('broker') ? 'broker' : kind.includes('worker') ? `worker ${target}` : `${kind} ${target}`;
      const last = new Map<string, number>();
      for (const f of faults) {
        const key = targetOf(f.kind, f.target);
        expect(f.atMs).toBeGreaterThanOrEqual(last.get(key) ?? 0);
        last.set(key, f.atMs + f.holdMs);
      }
    }
  });

  it('submits the profile`s number of jobs, spread over its window, with distinct products that exist', () => {
    const { submissions } = planSoak(5, PROFILES.ci, LEASE_MS);
    expect(submissions).toHaveLength(PROFILES.ci.jobs);
    expect(submissions.at(-1)!.atMs).toBeLessThan(PROFILES.ci.submitWindowMs);
    for (const s of submissions) {
      expect(new Set(s.productIds).size).toBe(s.productIds.length);
      expect(s.productIds.every((p) => p >= 1 && p <= SOAK_PRODUCTS)).toBe(true);
    }
    const bulk = submissions.filter((s) => s.productIds.length > 30).length;
    const cancelled = submissions.filter((s) => s.cancelAfterMs !== undefined).length;
    const shortDeadline = submissions.filter((s) => s.shortDeadline).length;
    expect(bulk).toBeGreaterThan(0);
    expect(cancelled).toBeGreaterThan(0);
    expect(shortDeadline).toBeGreaterThan(0);
    expect(submissionKey(5, 3)).toBe('soak-5-3');
  });

  it('seededRandom is a pure function of its seed', () => {
    const a = seededRandom(9);
    const b = seededRandom(9);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
  });
});

describe('parseSoakArgs', () => {
  it('defaults to the manual profile and the given seed', () => {
    expect(parseSoakArgs([], 11)).toEqual({ profile: PROFILES.manual, seed: 11 });
  });

  it('takes a profile, a seed and a number of jobs (the window grows with the jobs)', () => {
    const args = parseSoakArgs(['--profile', 'ci', '--seed', '99', '--jobs', '1000'], 1);
    expect(args.seed).toBe(99);
    expect(args.profile.jobs).toBe(1000);
    expect(args.profile.submitWindowMs).toBe(PROFILES.ci.submitWindowMs * 2);
  });

  it('refuses what it cannot use, saying what it wanted', () => {
    expect(() => parseSoakArgs(['--profile', 'huge'], 1)).toThrow(/ci or manual/);
    expect(() => parseSoakArgs(['--seed', '-1'], 1)).toThrow(/--seed/);
    expect(() => parseSoakArgs(['--seed', 'x'], 1)).toThrow(/--seed/);
    expect(() => parseSoakArgs(['--jobs', '5'], 1)).toThrow(/--jobs/);
  });
});
