import { createMemoryDriver } from '../../store/driver/memory-driver';
import { describeRunRecovery } from '../../test-kit/index';

describeRunRecovery('memory driver', async () => ({ driver: createMemoryDriver() }));
