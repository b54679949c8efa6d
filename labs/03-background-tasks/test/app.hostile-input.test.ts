// Lesson 01's hostile-input battery against lesson 03's server: lesson 01's routes plus
// POST /exports/background, which must treat a hostile client exactly as POST /exports does.
import { describeHostileInputBattery, LESSON_01_ROUTES } from '@tasks-lab/01-state-machine/hostile-input';
import { startBackgroundServer } from '../src/server.ts';

// The tag names the whole battery: coverage items point at it (its tests carry lesson 01's tags).
describeHostileInputBattery('lesson 03 API [test:hostile-input-battery]', {
  // A short export, so the jobs the battery submits finish before the server drains.
  start: (log) =>
    startBackgroundServer(0, { exportWorkMs: 20, log }).then((api) => ({ url: api.url, close: api.drainAndClose })),
  submitPaths: ['/exports', '/exports/background'],
  routes: [...LESSON_01_ROUTES, { path: '/exports/background', allow: ['POST'] }],
});
