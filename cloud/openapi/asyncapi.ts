/**
 * The AsyncAPI 3 document of the MQTT contract between the cloud and locker agents, built from
 * the zod schemas and topic names in shared/mqtt and the ACL in sync/acl.ts: a team writing its
 * own locker firmware implements it from this document alone. It is written from the agent's
 * side: `send` is what an agent publishes, `receive` what it subscribes to.
 */
import type { z } from 'zod';
import {
  AckMessage,
  CellsMessage,
  CommandMessage,
  ConnectionMessage,
  CONTRACT_VERSION,
  HealthMessage,
  LockerEvent,
  MQTT_LIMITS,
  ResponseMessage,
  SelfTestMessage,
  SyncMessage,
  TOPIC_ROOT,
  type TopicName,
} from '../../shared/mqtt/index.ts';
import { AGENT_PUBLISHES, AGENT_SUBSCRIBES } from '../sync/acl.ts';
import { SchemaTable, type JsonSchema } from './json-schema.ts';

interface TopicDoc {
  payload: z.ZodType;
  /** shown in the document; the contract tests parse it with `payload` */
  example: unknown;
  retain: boolean;
  summary: string;
  description: string;
}

/** Every topic of the contract; the direction comes from the broker's ACL. */
export const MQTT_TOPICS: Record<TopicName, TopicDoc> = {
  connection: {
    payload: ConnectionMessage,
    example: {
      v: CONTRACT_VERSION,
      online: true,
      agentVersion: '1.4.0',
      syncVersion: 17,
      at: '2026-01-15T09:30:00.000Z',
    },
    retain: true,
    summary: 'The agent announces itself',
    description:
      'Retained. Published on every connect with `online: true` and the `syncVersion` the agent holds (the cloud answers on `sync` with what changed after it, or a full snapshot); ' +
      'also the Last Will (`online: false`), and published with `online: false` on a clean stop.',
  },
  cells: {
    payload: CellsMessage,
    example: {
      v: CONTRACT_VERSION,
      at: '2026-01-15T09:30:00.000Z',
      cells: [
        { cellId: '1', size: 'S', lockClosed: true, parcelPresent: true, state: 'OK' },
        { cellId: '2', size: 'M', lockClosed: null, parcelPresent: null, state: 'UNKNOWN' },
      ],
    },
    retain: true,
    summary: 'State of every cell',
    description:
      'Retained, on change: per cell the lock (`lockClosed`), the parcel sensor (`parcelPresent`), both null while the board does not answer (never guess "closed"), and `state`.',
  },
  events: {
    payload: LockerEvent,
    example: {
      v: CONTRACT_VERSION,
      eventId: 'ev_k3j9x2',
      seq: 42,
      type: 'PLACED',
      orderId: 'eust1om0tgp5eb6sszp1pqq5',
      cellId: '1',
      at: '2026-01-15T09:31:12.000Z',
    },
    retain: false,
    summary: 'Something happened at the locker',
    description:
      'PLACED (DOWN code, parcel in a cell: the order becomes DELIVERED), PICKED_UP (UP code: COMPLETED), SUBTRACTED, CODE_REJECTED, LOCKOUT, DOOR_LEFT_OPEN, CELL_FAULT, TAMPER (a door read open that no command opened). ' +
      'The agent keeps each event in its own outbox and republishes it until the cloud acknowledges its `eventId` on `acks`; the cloud applies an event once per `eventId`, ' +
      "`seq` orders one locker's events, and an event about an order of another locker is refused.",
  },
  responses: {
    payload: ResponseMessage,
    example: { v: CONTRACT_VERSION, commandId: 'cmd_7hq2', status: 'ok' },
    retain: false,
    summary: 'Answer to a command',
    description: 'Same `commandId` as the command; `{ status: "ok", data }` or `{ status: "error", error }`.',
  },
  acks: {
    payload: AckMessage,
    example: { v: CONTRACT_VERSION, eventId: 'ev_k3j9x2' },
    retain: false,
    summary: 'The cloud committed an event',
    description: "Once the event is committed in the cloud's database; the agent then drops it from its outbox.",
  },
  health: {
    payload: HealthMessage,
    example: {
      v: CONTRACT_VERSION,
      at: '2026-01-15T09:30:00.000Z',
      agentVersion: '1.4.0',
      uptimeSeconds: 86400,
      outboxSize: 0,
      storeBytes: 81920,
      boards: [{ board: 0, online: true, timeouts: 2, checksumErrors: 0, lastAnswerAt: '2026-01-15T09:29:59.000Z' }],
    },
    retain: true,
    summary: "The agent's health",
    description:
      'Retained. On connect, at once when a board stops or starts answering, when a look every `cloud.healthIntervalMs` of the agent config (15 min) finds it changed, and unchanged every `cloud.healthHeartbeatMs` (6 h): per board whether it answers, ' +
      'its timeouts and checksum errors since the agent started, and the outbox and store sizes. A board that stays silent raises a BOARD_SILENT alarm in the cloud.',
  },
  selftest: {
    payload: SelfTestMessage,
    example: {
      v: CONTRACT_VERSION,
      at: '2026-01-15T09:40:00.000Z',
      agentVersion: '1.4.0',
      all: false,
      results: [
        { cellId: '1', board: 0, lock: 1, outcome: 'OK' },
        { cellId: '2', board: 0, lock: 2, outcome: 'JAMMED', detail: 'the hook never read open' },
      ],
    },
    retain: true,
    summary: 'The last self-test',
    description:
      'Retained: the report of `agent self-test` (each cell OK, JAMMED, NO_ANSWER, SENSOR_STUCK or SKIPPED); the operator sees the last one with `locker status`.',
  },
  sync: {
    payload: SyncMessage,
    example: {
      v: CONTRACT_VERSION,
      version: 18,
      full: false,
      since: 17,
      removals: [],
      upserts: [
        {
          orderId: 'eust1om0tgp5eb6sszp1pqq5',
          codes: { DOWN: '4821', UP: '9034', SUBTRACT: '1276' },
          notPaidAmount: 15000,
          status: 'DELIVERED',
          cellId: '1',
        },
      ],
    },
    retain: false,
    summary: "The locker's orders",
    description:
      'Every order the locker must know, with its three codes, its unpaid remainder (minor units; the parcel is not handed out while it is above 0) and status. ' +
      "`full: true` replaces the agent's store; otherwise a delta from version `since` to `version`: an agent holding less than `since` refuses it and publishes `connection` again.",
  },
  commands: {
    payload: CommandMessage,
    example: {
      v: CONTRACT_VERSION,
      commandId: 'cmd_7hq2',
      type: 'OPEN_CELL',
      cellId: '1',
      orderId: 'eust1om0tgp5eb6sszp1pqq5',
      expiresAt: '2026-01-15T09:45:00.000Z',
    },
    retain: false,
    summary: 'Staff commands',
    description:
      "OPEN_CELL (staff subtraction: open the order's cell; refused after `expiresAt`) and RESYNC (publish `connection` again). A redelivered `commandId` is executed only once.",
  },
};

const INTRODUCTION = `
The contract between the cloud and each locker's agent (one agent per locker), over MQTT 3.1.1/5 with JSON payloads.
This document is written from the agent's side: **send** operations are what an agent publishes, **receive** what it subscribes to.

- **Contract version**: every message carries \`v: "${CONTRACT_VERSION}"\`; the major part changes when an older peer would misread a message.
- **Credentials**: each locker has its own MQTT username (its locker id) and password, issued by the operator CLI
  (\`npm run operator -- agent reset --locker <lockerId>\`, printed once); the cloud stores only a hash.
- **ACL**: a locker may publish only \`${AGENT_PUBLISHES.map((t) => `${TOPIC_ROOT}/{its id}/${t}`).join('`, `')}\` and subscribe only to
  \`${AGENT_SUBSCRIBES.map((t) => `${TOPIC_ROOT}/{its id}/${t}`).join('`, `')}\`, by exact topic (no wildcards). Anything else is refused by the broker.
- **QoS 1 everywhere**; \`connection\`, \`cells\`, \`health\` and \`selftest\` are retained; \`connection\` is also the Last Will.
- **Limits**: one packet from a locker is at most ${MQTT_LIMITS.lockerPacketBytes} bytes (the broker closes a connection announcing more);
  ids at most ${MQTT_LIMITS.idLength} characters of letters, digits, \`_\` and \`-\`; a cell report at most ${MQTT_LIMITS.cellsPerReport} cells.
  Both ends validate every message against these schemas and drop what does not match.
- **Offline**: the agent keeps working from its stored orders and outbox while the link is down; on reconnect it announces its \`syncVersion\` and republishes unacknowledged events.
`.trim();

export function asyncApiDocument(): JsonSchema {
  const table = new SchemaTable('#/components/schemas/', 'draft-7');
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const [name, doc] of Object.entries(MQTT_TOPICS) as Array<[TopicName, TopicDoc]>) {
    const sends = AGENT_PUBLISHES.includes(name);
    const messageName = `${name}Message`;
    messages[messageName] = {
      name: messageName,
      title: doc.summary,
      contentType: 'application/json',
      payload: table.convert(doc.payload, 'output'),
      examples: [{ name: 'example', payload: doc.example }],
    };
    channels[name] = {
      address: `${TOPIC_ROOT}/{lockerId}/${name}`,
      title: doc.summary,
      description: doc.description,
      parameters: { lockerId: { description: 'the locker id, also the MQTT username of its agent' } },
      messages: { [messageName]: { $ref: `#/components/messages/${messageName}` } },
    };
    operations[`${sends ? 'send' : 'receive'}${name[0].toUpperCase()}${name.slice(1)}`] = {
      action: sends ? 'send' : 'receive',
      channel: { $ref: `#/channels/${name}` },
      summary: `${sends ? 'agent → cloud' : 'cloud → agent'}: ${doc.summary}`,
      messages: [{ $ref: `#/channels/${name}/messages/${messageName}` }],
      bindings: { mqtt: { qos: 1, retain: doc.retain, bindingVersion: '0.2.0' } },
    };
  }
  return {
    asyncapi: '3.1.0',
    info: {
      title: 'Parcel-locker MQTT contract (cloud ⇄ locker agent)',
      version: CONTRACT_VERSION,
      description: INTRODUCTION,
    },
    defaultContentType: 'application/json',
    servers: {
      embedded: {
        host: 'localhost:1883',
        protocol: 'mqtt',
        description:
          "The cloud's embedded broker (`MQTT_PORT`, default 1883), or an external broker named by `MQTT_URL` with the same ACL.",
        security: [{ $ref: '#/components/securitySchemes/lockerCredentials' }],
      },
    },
    channels,
    operations,
    components: {
      messages,
      ...(Object.keys(table.components).length ? { schemas: table.components } : {}),
      securitySchemes: {
        lockerCredentials: {
          type: 'userPassword',
          description: 'username = the locker id; password = the secret the operator CLI issued for that locker',
        },
      },
    },
  };
}
