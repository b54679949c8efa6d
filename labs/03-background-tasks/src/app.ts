// Lesson 03's route: POST /exports/background accepts an export, answers 202, and
// only then starts the work in this same process. It plugs into lab 01's app
// through `extendRoutes`, so GET /exports/:id, validation and errors stay lab 01's.
import type { Express } from 'express';
import {
  allowOnly,
  createApp,
  MemoryJobStore,
  parseExportRequest,
  parseJsonBody,
  requireJson,
  toJobResponse,
  type JobStore,
} from '@tasks-lab/01-state-machine';
import { runExportJob, simulatedExport, type ExportWork } from './export-work.ts';
import { TaskRegistry } from './task-registry.ts';

export interface BackgroundRouteOptions {
  registry: TaskRegistry;
  /** The export to run after the response. @defaultValue simulatedExport() (about 1 s) */
  work?: ExportWork;
}

/** An `extendRoutes` for lab 01's createApp that adds POST /exports/background. */
export function backgroundExportRoutes(options: BackgroundRouteOptions): (app: Express, store: JobStore) => void {
  const work = options.work ?? simulatedExport();
  return (app, store) => {
    // The same body handling as lesson 01's POST /exports (requireJson, parseJsonBody), and
    // 405 with an Allow header for any other method on this path.
    app
      .route('/exports/background')
      .post(requireJson, parseJsonBody, async (req, res) => {
        const request = parseExportRequest(req.body);
        const job = await store.create(request.product_ids);
        // 'finish' fires once Node has handed the whole response to the operating system.
        // Only then does the export start, so the client's 202 never waits for it.
        // If the connection breaks before that, 'finish' never fires and the job stays queued:
        // local background work comes with no delivery guarantee.
        res.once('finish', () => {
          // No await on purpose: the registry owns the task and observes its outcome.
          void options.registry.start(job.id, (signal) => runExportJob(store, job.id, work, signal));
        });
        res.status(202).location(`/exports/${job.id}`).json(toJobResponse(job));
      })
      .all(allowOnly('POST'));
  };
}

export interface BackgroundAppOptions extends Partial<BackgroundRouteOptions> {
  /** Where jobs are kept. @defaultValue a new MemoryJobStore (in memory, like lesson 01) */
  store?: JobStore;
  log?: (line: string) => void;
}

/** Lab 01's app plus the background route; the registry shares the app's store. */
export function createBackgroundApp(options: BackgroundAppOptions = {}): {
  app: Express;
  store: JobStore;
  registry: TaskRegistry;
} {
  const store = options.store ?? new MemoryJobStore();
  const registry = options.registry ?? new TaskRegistry(store, { log: options.log });
  const extendRoutes = backgroundExportRoutes({ registry, work: options.work });
  const { app } = createApp({ store, log: options.log, extendRoutes });
  return { app, store, registry };
}
