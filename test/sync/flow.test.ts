/**
 * An order's physical life over the cloud's embedded broker: placement, pickup refused while
 * unpaid, payment, pickup; the SUBTRACT code; staff subtraction; the agent offline; the cloud
 * restarted (scenarios.ts; mosquitto.test.ts runs the same against an external broker).
 */
import { brokerScenarios } from './scenarios.ts';

brokerScenarios('embedded broker');
