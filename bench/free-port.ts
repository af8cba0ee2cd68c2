import { createServer, type AddressInfo } from 'node:net';

/** A port the system has free now (listen on 0, read it, close): concurrent runs no longer collide. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
