// Lesson 01's app against the hostile-input battery (test/hostile-input.ts), served on a
// real HTTP server in this process. Later HTTP labs run the same battery on their apps.
import { startServer } from '../src/server.ts';
import { describeHostileInputBattery } from './hostile-input.ts';

describeHostileInputBattery('lesson 01 API', { start: (log) => startServer(0, { log }) });
