-- Prefect keeps its own database beside Polygon's (POSTGRES_DB creates `polygon`).
CREATE DATABASE prefect OWNER polygon;
