import { createAgentRuntimeStore, createMemoryDriver, RunEventHub } from '../../index';
import { describeBusConformance } from '../../test-kit/index';

describeBusConformance('in-process RunEventHub', {
  acrossProcesses: false,
  faults: false,
  setup: async () => {
    const hub = new RunEventHub();
    return {
      store: createAgentRuntimeStore(createMemoryDriver()),
      openBus: async () => hub,
      close: async () => {},
    };
  },
});
