import { FilesInit1763820000000 } from './1763820000000-files-init';
import { JobRequestId1764400000000 } from './1764400000000-job-request-id';

export const filesMigrations = [FilesInit1763820000000, JobRequestId1764400000000];
