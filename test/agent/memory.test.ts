import { lockerScenarios } from './scenarios.ts';

// The in-process variant: agent and simulator joined by in-memory serial links.
lockerScenarios('in-memory bus', { transport: 'memory' });
