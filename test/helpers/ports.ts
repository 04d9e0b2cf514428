// A free loopback port for a server the test starts by port number (a launched ship or bridge); the same
// helper the benchmarks use.
export { freePort } from '../../bench/lib/ports.js';
