// Where a lab's processes run, as options: its database (JOBS_DATABASE), its BullMQ key prefix
// (BULLMQ_PREFIX: lesson 13 gives each lab its own, so one lab's workers never take another's
// wake-ups) and its artifacts folder (ARTIFACTS_DIR). Lessons 14 to 16 run the processes of the
// lab below them unchanged, moved onto their own place with processOptionsOn.
import { labDatabase, labPrefix } from '@tasks-lab/infra';
import { defineOptions, name, text, type OptionsDefinition, type OptionSpec } from '@tasks-lab/lab-kit';

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
    WORKER_PROCESS_OPTIONS: defineOptions({
      ...below.worker.specs,
      database,
      queuePrefix,
      artifactsDir: place.artifactsDir,
    }),
    SERVER_PROCESS_OPTIONS: defineOptions({ ...below.server.specs, database, queuePrefix }),
  };
}
