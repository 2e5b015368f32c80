/**
 * Bench-only experiment (bench:peak with BENCH_PEAK_NODELAY=1): every TCP socket of the process
 * it is preloaded into (`--import`) turns Nagle's algorithm off, the ones it connects and the
 * ones its servers accept. Neither aedes nor MQTT.js does (Node's default keeps it on), and a
 * small MQTT write that follows another before its TCP ACK waits for that ACK, which the other
 * side delays by up to 40 ms on Linux: this measures what that costs the door events and the sync.
 */
import net from 'node:net';

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  this.setNoDelay(true);
  return connect.apply(this, args);
};
const emit = net.Server.prototype.emit;
net.Server.prototype.emit = function (event, socket, ...rest) {
  if (event === 'connection' && socket instanceof net.Socket) socket.setNoDelay(true);
  return emit.call(this, event, socket, ...rest);
};
