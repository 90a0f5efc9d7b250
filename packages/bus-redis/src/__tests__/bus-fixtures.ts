/** The bus fixtures of the runtime's test kit, by the names these tests use. */
export {
  busDelta as delta,
  busLabel as label,
  followBus as follow,
  startBusRun as startRun,
} from '@runlight/runtime/test-kit';
