/**
 * POST /api/v1/agent/enrol (docs/field-technicians.md, "Enrol"): unauthenticated, so limited
 * like the other open doors: requests per address, and failed codes per address (a wrong,
 * used or expired code counts; once AUTH_FAILURE_MAX have failed, 429 until the window ends).
 */
import type { Request } from 'express';
import {
  ENROLMENT_PATH,
  ENROLMENT_REFUSALS,
  EnrolmentRequest,
  EnrolmentResponse,
  type EnrolmentRefusal,
} from '../../shared/enrolment.ts';
import type { Mount } from '../deps.ts';
import { guardsOf } from '../http/app-guards.ts';
import { addressOf } from '../http/client-address.ts';
import { HttpError } from '../http/http-error.ts';
import { route } from '../http/route.ts';
import { EnrolmentRefused, exchangeEnrolmentCode } from './enrolment.ts';

const STATUS: Record<EnrolmentRefusal, number> = {
  ENROLMENT_CODE_UNKNOWN: 404,
  ENROLMENT_CODE_USED: 409,
  ENROLMENT_CODE_EXPIRED: 410,
  LOCKER_HAS_NO_CELLS: 409,
};

/** Without a broker address (an app built with no broker), enrolment cannot hand one out. */
const noBroker = (): string => {
  throw new HttpError(503, 'this cloud has no broker address for lockers: set AGENT_MQTT_URL', {
    code: 'NO_AGENT_BROKER',
  });
};

/**
 * `deps.agentBrokerUrl`: AGENT_MQTT_URL, or else the cloud's broker as seen from the enrolling
 * locker: the host it reached this endpoint by, with the broker's port.
 */
export const mountEnrolment: Mount = (app, deps) => {
  const agentMqttUrl = deps.agentBrokerUrl ?? noBroker;
  const { limits } = guardsOf(deps);
  app.post(
    ENROLMENT_PATH,
    limits.requests('enrol:address', addressOf),
    route({ body: EnrolmentRequest, response: EnrolmentResponse }, async ({ body, req }) => {
      const attempt = limits.addresses.attempt(addressOf(req));
      try {
        const answer = await exchangeEnrolmentCode(deps.uow, body.code, agentMqttUrl(req), deps.clock.now());
        limits.addresses.succeeded(attempt);
        deps.logger.info('locker enrolled', { lockerId: answer.lockerId, cells: answer.cells.length });
        return answer;
      } catch (err) {
        if (!(err instanceof EnrolmentRefused)) throw err;
        deps.logger.warn('enrolment refused', { reason: err.code, address: addressOf(req) });
        throw new HttpError(STATUS[err.code], ENROLMENT_REFUSALS[err.code], { code: err.code });
      }
    }),
  );
};

/** The fallback when AGENT_MQTT_URL is not set: same host as the request, the broker's port. */
export function brokerAtRequestHost(brokerUrl: string): (req: Request) => string {
  return (req) => {
    const broker = new URL(brokerUrl);
    // The cloud's own broker login never goes to a locker.
    broker.username = '';
    broker.password = '';
    const host = req.hostname || broker.hostname;
    broker.hostname = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
    return broker.toString().replace(/\/$/, '');
  };
}
