/**
 * Set by the server's entry point when a SIGTERM or SIGINT arrives: the health route answers
 * 503 from then on, so a load balancer stops sending requests, while the server still serves
 * those that come during SHUTDOWN_DRAIN_MS (docs/operations.md). One flag per process: there is
 * one server per process outside the tests.
 */
let draining = false;

export const startDraining = () => {
  draining = true;
};
export const isDraining = () => draining;
