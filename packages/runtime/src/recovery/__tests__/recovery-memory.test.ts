import { describeRunRecovery } from '@runlight/test-utils';
import { createMemoryDriver } from '../../store/memory-driver';

describeRunRecovery('memory driver', async () => ({ driver: createMemoryDriver() }));
