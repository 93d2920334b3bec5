import 'reflect-metadata';
import { runService } from '@emailverify/service-kit';
import { fileJobsModule } from './app.module';
import { loadFileJobsConfig } from './config';

runService('file-jobs', loadFileJobsConfig, fileJobsModule);
