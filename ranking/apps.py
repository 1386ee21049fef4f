from django.apps import AppConfig


class RankingConfig(AppConfig):
    name = "ranking"
    verbose_name = "Rankings and analyses"

    def ready(self) -> None:
        from .active_queue import connect

        connect()
