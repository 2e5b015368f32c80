/** `npm run cloud`: the cloud alone, configured by the environment. */
import { loadConfig, ConfigError } from './config.ts';
import { createLogger } from './logger.ts';
import { startCloud } from './server.ts';

async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ level: config.LOG_LEVEL });
  const cloud = await startCloud(config, { logger });
  logger.info('cloud ready', {
    url: cloud.url,
    storage: cloud.storage.describe,
    mqtt: cloud.sync.mqttUrl,
    metrics: cloud.metricsUrl ?? null,
  });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    await cloud.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error(`cloud failed to start: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
});
