"""REST serializers of campaigns (organizer view: systems are shown here, never on judge endpoints)."""
from rest_framework import serializers

from .models import Campaign, System


class SystemSerializer(serializers.ModelSerializer):
    class Meta:
        model = System
        fields = ["name", "kind"]


class CampaignSerializer(serializers.ModelSerializer):
    systems = SystemSerializer(many=True, read_only=True)
    segments = serializers.IntegerField(source="segments.count", read_only=True)
    documents = serializers.IntegerField(source="documents.count", read_only=True)
    screens = serializers.IntegerField(source="screens.count", read_only=True)

    class Meta:
        model = Campaign
        fields = [
            "id", "name", "mode", "max_candidates", "sampling", "seed", "redundancy", "repeat_rate",
            "distinct_histogram", "systems", "segments", "documents", "screens", "created_at",
        ]
        read_only_fields = fields


class ScreensRequestSerializer(serializers.Serializer):
    count = serializers.IntegerField(min_value=1, max_value=100_000, required=False, allow_null=True)
