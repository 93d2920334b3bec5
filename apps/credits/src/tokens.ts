export { SERVICE_DATA_SOURCE as DATA_SOURCE } from '@emailverify/service-kit';
