/**
 * What aedes keeps for each connected client beyond what the connection needs. A heap snapshot
 * of 2,000 connected lockers (bench:sync's broker probe) showed, per client: mqtt-packet's
 * parser buffering the bytes of an unfinished packet in a BufferListStream, a whole Duplex
 * stream (a readable and a writable state, listeners, bound functions) of which it uses only
 * the list; and the CONNECT packet it parsed, kept for the connection's life only for its
 * protocol version, with the locker's password in it. Both go, by the same means aedes and
 * mqtt-packet use (their own fields), checked first: a version that changed them is left as it
 * is and said once in the log (`false`).
 */
import { BufferList } from 'bl';

interface ParserFields {
  _list?: { length: number; append?: unknown; pipe?: unknown };
  settings?: { protocolVersion?: number };
}

const parserOf = (client: unknown): ParserFields | undefined => (client as { _parser?: ParserFields } | null)?._parser;

/**
 * Right after `broker.handle(socket)`, before the socket has been read: the parser's buffer
 * becomes a plain list (the same methods, no stream around them).
 */
export function leanParser(client: unknown): boolean {
  const parser = parserOf(client);
  const list = parser?._list;
  if (!parser || !list || typeof list.pipe !== 'function' || typeof list.append !== 'function' || list.length !== 0)
    return false;
  parser._list = new BufferList() as unknown as ParserFields['_list'];
  return true;
}

/** Once the CONNECT is accepted: the parser keeps its protocol version, not the packet. */
export function forgetConnect(client: unknown): boolean {
  const parser = parserOf(client);
  const settings = parser?.settings;
  if (!parser || !settings || typeof settings.protocolVersion !== 'number') return false;
  parser.settings = { protocolVersion: settings.protocolVersion };
  return true;
}
