/**
 * Version of the agent ↔ cloud MQTT contract. Every message carries it as `v`; bump the major
 * part when a change would make an older peer misread a message.
 */
export const CONTRACT_VERSION = '1.0';
