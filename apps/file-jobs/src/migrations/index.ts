import type { ServiceDatabase } from '@emailverify/service-kit';
import { FilesInit1763820000000 } from './1763820000000-files-init';
import { JobMode1764300000000 } from './1764300000000-job-mode';
import { FilesJobList1764390000000 } from './1764390000000-files-job-list';

export const filesMigrations = [FilesInit1763820000000, JobMode1764300000000, FilesJobList1764390000000];

/** The schema file-jobs owns, which its migrations write into. */
export const filesDatabase: ServiceDatabase = { schema: 'files', migrations: filesMigrations };
