import 'reflect-metadata';
import { runService } from '@emailverify/service-kit';
import { FileJobsAppModule } from './app.module';
import { loadFileJobsConfig } from './config';

runService('file-jobs', loadFileJobsConfig, (config) => FileJobsAppModule.forRoot(config));
