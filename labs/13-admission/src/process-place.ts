// Where a lab's processes run, as options: its database (JOBS_DATABASE), its BullMQ key prefix
// (BULLMQ_PREFIX: lesson 13 gives each lab its own, so one lab's workers never take another's
// wake-ups) and its artifacts folder (ARTIFACTS_DIR). Lessons 14 to 16 run the processes of the
// lab below them unchanged, moved onto their own place with processOptionsOn.
import { fileURLToPath } from 'node:url';
import { labDatabase, labPrefix } from '@tasks-lab/infra';
import { defineOptions, name, text, type OptionsDefinition, type OptionSpec } from '@tasks-lab/lab-kit';

/**
 * A lab's own names, so that its processes, verify and tests never touch another lab's: its
 * database and verify's, its BullMQ key prefix, its artifacts folder, and lesson 12's nudge
 * channel under its prefix (a lab 12 publisher never hears lab 13's submissions).
 * `optionsModuleUrl` is the `import.meta.url` of the lab's src/options.ts.
 */
export function labNames(lab: string, optionsModuleUrl: string) {
  const JOBS_DATABASE = labDatabase(lab);
  const QUEUE_PREFIX = labPrefix(lab);
  return {
    /** The student's database (`tasks_lab13`, ...): every process of the lab uses it. */
    JOBS_DATABASE,
    /** Verify's own database (`tasks_lab13_verify`, ...), recreated on every run. */
    VERIFY_DATABASE: `${JOBS_DATABASE}_verify`,
    /** The lab's BullMQ key prefix (`tasks-lab13`, ...; verify's experiments use prefixes of their own). */
    QUEUE_PREFIX,
    /** Where the workers write artifacts by default: the lab's `artifacts/` folder. */
    ARTIFACTS_DIR: fileURLToPath(new URL('../artifacts', optionsModuleUrl)),
    /** Lesson 12's nudge channel, the lab's own (`tasks-lab13:outbox-nudge`, ...). */
    nudgeChannel: `${QUEUE_PREFIX}:outbox-nudge`,
  };
}

/** Lab `lab`'s place: the three options, with that lab's values as their defaults. */
export function processPlace(lab: string, artifactsDir: string) {
  return {
    /** The database of the jobs, the outbox and the gate. @defaultValue labDatabase(lab) (`tasks_lab13`) */
    database: name('JOBS_DATABASE', labDatabase(lab)),
    /**
     * The workers' and the publisher's BullMQ key prefix (verify's experiments use prefixes of their own).
     * @defaultValue labPrefix(lab) (`tasks-lab13`)
     */
    queuePrefix: name('BULLMQ_PREFIX', labPrefix(lab)),
    /** Where the workers write artifacts. @defaultValue the lab's `artifacts/` folder (`labs/13-admission/artifacts`) */
    artifactsDir: text('ARTIFACTS_DIR', artifactsDir),
  };
}

type Specs = Record<string, OptionSpec<unknown>>;

/**
 * The processes of the lab below (`pnpm publisher`, the workers, `pnpm start`), unchanged, on lab
 * `lab`'s database, BullMQ prefix and artifacts folder: how lessons 14 to 16 run lesson 13's.
 */
export function processOptionsOn<P extends Specs, W extends Specs, S extends Specs>(
  lab: string,
  artifactsDir: string,
  below: { publisher: OptionsDefinition<P>; worker: OptionsDefinition<W>; server: OptionsDefinition<S> },
) {
  const place = processPlace(lab, artifactsDir);
  const { database, queuePrefix } = place;
  return {
    PUBLISHER_PROCESS_OPTIONS: defineOptions({ ...below.publisher.specs, database, queuePrefix }),
    WORKER_PROCESS_OPTIONS: defineOptions({ ...below.worker.specs, ...place }),
    SERVER_PROCESS_OPTIONS: defineOptions({ ...below.server.specs, database, queuePrefix }),
  };
}
