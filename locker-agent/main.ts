import { parseArgs } from 'node:util';
import { AGENT_VERSION, LockerAgent } from './agent.ts';
import { openSerialLink } from './boards/serial-link.ts';
import { ConfigError, loadConfig } from './config.ts';
import { consoleLog, type Display } from './display.ts';
import { openKeypad } from './keypad/keypad.ts';
import { startAgentSync, type AgentSync } from './sync.ts';

/**
 * `npm run agent -- --config locker.json`. With a `cloud` section the agent syncs with the cloud
 * over MQTT (sync.ts). When started by the simulator with an IPC channel, the same process also
 * reports events and display lines over it, and takes what the simulator's control API drives
 * directly: sync messages and commands without a cloud, and "cut the network".
 */
async function main(): Promise<void> {
    const { values } = parseArgs({ options: { config: { type: 'string', short: 'c' } } });
    if (!values.config) throw new ConfigError('usage: locker-agent --config <file>');
    const config = loadConfig(values.config);
    const send = process.send?.bind(process);
    const display: Display = {
        show(text) {
            console.log(`[display] ${text}`);
            send?.({ type: 'display', text });
        },
    };
    const { link } = await openSerialLink(config.serial.device, config.serial.baudRate);
    const keypad = await openKeypad(config.keypad.device, config.keypad.baudRate);
    const agent = new LockerAgent(config, { bus: link, keypad, display, log: consoleLog });
    agent.on('event', (event) => send?.({ type: 'event', event }));
    agent.on('cells', (cells) => send?.({ type: 'cells', cells }));
    let sync: AgentSync | undefined;
    process.on('message', (msg: { type: string; id?: number; payload?: unknown }) => void onMessage(agent, sync, msg));
    const shutdown = () => void (sync?.stop() ?? Promise.resolve()).then(() => agent.stop()).finally(() => process.exit(0));
    process.on('SIGTERM', shutdown);
    process.on('SIGINT', shutdown);
    // Started by the simulator: do not outlive it if it dies without stopping us.
    if (send) process.on('disconnect', shutdown);
    await agent.start();
    sync = startAgentSync(agent, config, consoleLog, AGENT_VERSION);
    send?.({ type: 'ready' });
}

async function onMessage(agent: LockerAgent, sync: AgentSync | undefined, msg: { type: string; id?: number; payload?: unknown }): Promise<void> {
    let result: unknown;
    try {
        if (msg.type === 'sync') result = agent.applySync(msg.payload);
        else if (msg.type === 'command') result = await agent.handleCommand(msg.payload);
        else if (msg.type === 'ack') result = agent.ack(String(msg.payload));
        else if (msg.type === 'cells') result = agent.cellsMessage();
        else if (msg.type === 'pending') result = agent.pendingEvents();
        else if (msg.type === 'syncVersion') result = agent.syncVersion();
        else if (msg.type === 'network') result = await sync?.setNetwork(msg.payload === true).then(() => true) ?? false;
        else throw new Error(`unknown message ${msg.type}`);
        process.send?.({ type: 'reply', id: msg.id, ok: true, result });
    } catch (err) {
        process.send?.({ type: 'reply', id: msg.id, ok: false, error: (err as Error).message });
    }
}

main().catch((err) => {
    consoleLog.error(err instanceof ConfigError ? err.message : (err as Error).stack ?? String(err));
    process.exit(1);
});
