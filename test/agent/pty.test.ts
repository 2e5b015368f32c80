import { lockerScenarios } from './scenarios.ts';

// The agent as a real child process (`npm run agent`), over socat pseudo-terminals, opening
// its bus and keypad devices exactly as it opens /dev/ttyUSB0 in the field.
lockerScenarios('pseudo-terminals, agent process', { transport: 'pty', agentMode: 'child' });
