from django.apps import AppConfig


class RankingConfig(AppConfig):
    name = "ranking"
    verbose_name = "Rankings and analyses"
